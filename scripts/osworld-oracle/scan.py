#!/usr/bin/env python3
"""List what OSWorld's task files ask of the grader.

Usage: scan.py OSWORLD_CHECKOUT [--json]

Reads evaluation_examples/test_all.json and the task files it names, and
prints every metric (func), getter type (result/expected type), option key
with the values the tasks pass, and the keys of expected "rules", each with
the number of tasks using it. gen.py uses the same scan to check that its
cases cover every metric and option value the tasks use.
"""
import collections
import json
import os
import sys


def tasks(root):
    ex = os.path.join(root, "evaluation_examples")
    index = json.load(open(os.path.join(ex, "test_all.json")))
    for domain, ids in sorted(index.items()):
        for tid in ids:
            path = os.path.join(ex, "examples", domain, tid + ".json")
            with open(path) as f:
                yield domain, tid, json.load(f)


def listify(v, n):
    if isinstance(v, list):
        return v
    return [v] * n


def scan(root):
    """Return {"metrics": {name: {"tasks": n, "options": {key: [values]}, "rules": {key: n}}},
    "getters": {type: n}, "conj": {...}} over the 369 tasks."""
    metrics = collections.OrderedDict()
    getters = collections.Counter()
    conj = collections.Counter()
    uses = []  # (task id, metric, options, result getter, expected getter)
    for domain, tid, t in tasks(root):
        ev = t.get("evaluator", {})
        funcs = ev.get("func")
        if funcs is None:
            continue
        many = isinstance(funcs, list)
        funcs = funcs if many else [funcs]
        n = len(funcs)
        res = listify(ev.get("result"), n) if many else [ev.get("result")]
        exp = listify(ev.get("expected"), n) if many else [ev.get("expected")]
        opts = listify(ev.get("options"), n) if many else [ev.get("options")]
        conj[ev.get("conj", "and")] += 1
        for i, fn in enumerate(funcs):
            m = metrics.setdefault(fn, {"tasks": set(), "options": collections.OrderedDict(), "rules": collections.Counter()})
            m["tasks"].add(tid)
            o = opts[i] if i < len(opts) else None
            if isinstance(o, dict):
                for k, v in o.items():
                    vals = m["options"].setdefault(k, [])
                    js = json.dumps(v, sort_keys=True)
                    if js not in vals:
                        vals.append(js)
            for g in (res[i] if i < len(res) else None, exp[i] if i < len(exp) else None):
                if isinstance(g, dict) and "type" in g:
                    getters[g["type"]] += 1
            e = exp[i] if i < len(exp) else None
            if isinstance(e, dict) and e.get("type") == "rule":
                rules = e.get("rules")
                if isinstance(rules, dict):
                    for k in rules:
                        m["rules"][k] += 1
            uses.append({"task": tid, "domain": domain, "func": fn, "options": o,
                         "result": res[i] if i < len(res) else None,
                         "expected": e})
    for m in metrics.values():
        m["tasks"] = len(m["tasks"])
    return {"metrics": metrics, "getters": dict(getters), "conj": dict(conj), "uses": uses}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: scan.py OSWORLD_CHECKOUT [--json]")
    s = scan(sys.argv[1])
    if "--json" in sys.argv:
        s = dict(s)
        s.pop("uses")
        json.dump(s, sys.stdout, indent=1, default=list)
        print()
        return
    print("%d metrics" % len(s["metrics"]))
    for name, m in sorted(s["metrics"].items(), key=lambda kv: -kv[1]["tasks"]):
        print("%-45s %3d tasks" % (name, m["tasks"]))
        for k, vals in m["options"].items():
            print("    option %-28s %s" % (k, " | ".join(vals)[:300]))
        for k, c in m["rules"].items():
            print("    rule   %-28s %d" % (k, c))
    print("%d getters" % len(s["getters"]))
    for g, c in sorted(s["getters"].items(), key=lambda kv: -kv[1]):
        print("%-45s %3d" % (g, c))
    print("conj", s["conj"])


if __name__ == "__main__":
    main()
