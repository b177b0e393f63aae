"""Comparing two runs' results, as ``deskrun runs compare`` does, without
its significance test: per task (mean score over its trials) and per domain."""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from ._types import TaskResult


def _by_task(rs: Sequence[TaskResult]) -> Dict[str, Dict[str, Any]]:
    out: Dict[str, Dict[str, Any]] = {}
    for r in rs:
        t = out.setdefault(r.id, {"id": r.id, "domain": r.domain, "scores": [], "passed": 0})
        t["scores"].append(r.score)
        if r.status == "passed":
            t["passed"] += 1
    for t in out.values():
        n = len(t["scores"])
        t["mean_score"] = sum(t["scores"]) / n if n else 0.0
        t["trials"] = n
    return out


def _change(b: Any, n: Any) -> str:
    if b is None:
        return "added"
    if n is None:
        return "removed"
    if b["passed"] == b["trials"] and n["passed"] < n["trials"]:
        return "newly failing"
    if b["passed"] == 0 and n["passed"] > 0:
        return "newly passing"
    if n["mean_score"] < b["mean_score"]:
        return "worse"
    if n["mean_score"] > b["mean_score"]:
        return "better"
    return "same"


_RANK = {"newly failing": 0, "worse": 1, "removed": 2, "added": 3, "newly passing": 4, "better": 5, "same": 6}


def compare_results(base: Sequence[TaskResult], new: Sequence[TaskResult]) -> Dict[str, Any]:
    """Compares a new run's results with a base run's.

    Answers ``{"tasks": [...], "domains": [...], "overall": {...}}``: each task
    with ``base`` and ``new`` mean scores (None when a run lacks it), ``delta``
    and ``change`` (``newly failing``, ``newly passing``, ``worse``, ``better``,
    ``same``, ``added``, ``removed``; worst first); each domain and ``all``
    over the tasks both runs have, with ``tasks``, ``base_mean``, ``new_mean``,
    ``delta``, ``newly_failing`` and ``newly_passing``. ``deskrun runs compare``
    adds a paired bootstrap's verdict on the server's side.
    """
    b, n = _by_task(base), _by_task(new)
    tasks: List[Dict[str, Any]] = []
    for tid in sorted(set(b) | set(n)):
        bt, nt = b.get(tid), n.get(tid)
        d = (nt or bt or {}).get("domain", "")
        delta = (nt["mean_score"] - bt["mean_score"]) if bt and nt else 0.0
        tasks.append({"id": tid, "domain": d, "base": bt["mean_score"] if bt else None,
                      "new": nt["mean_score"] if nt else None, "delta": round(delta, 6), "change": _change(bt, nt)})
    tasks.sort(key=lambda t: (_RANK[t["change"]], t["delta"], t["id"]))
    domains: Dict[str, List[Dict[str, Any]]] = {}
    for t in tasks:
        if t["base"] is not None and t["new"] is not None:
            domains.setdefault(t["domain"], []).append(t)
            domains.setdefault("all", []).append(t)
    rows = []
    for name in sorted(k for k in domains if k != "all") + (["all"] if "all" in domains else []):
        ts = domains[name]
        bm = sum(t["base"] for t in ts) / len(ts)
        nm = sum(t["new"] for t in ts) / len(ts)
        rows.append({"domain": name, "tasks": len(ts), "base_mean": bm, "new_mean": nm, "delta": round(nm - bm, 6),
                     "newly_failing": sum(t["change"] == "newly failing" for t in ts),
                     "newly_passing": sum(t["change"] == "newly passing" for t in ts)})
    overall = rows[-1] if rows and rows[-1]["domain"] == "all" else {"domain": "all", "tasks": 0}
    return {"tasks": tasks, "domains": rows, "overall": overall}
