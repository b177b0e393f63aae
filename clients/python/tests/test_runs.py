"""Task suite runs on the server, on both clients: the shipped suite's
``files`` tasks replayed by their reference solutions."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

import deskrun

ONLY = ["files-copy-notes", "files-move-todo"]


def test_a_run_from_start_to_compare(api: Any) -> None:
    run = api.runs.start("tasks/files", agent="replay", parallel=2, only=ONLY)
    assert run.info.status == "running" and run.info.request.parallel == 2 and run.id
    assert run.id in [r.id for r in api.runs.list()]
    with pytest.raises(deskrun.Conflict):
        if not run.refresh().ended:
            run.report()
        else:
            raise deskrun.Conflict("ended already")
    events = list(run.events(interval=0.2))
    kinds = [e.kind for e in events]
    assert kinds[-1] == "end" and kinds.count("end") == 1
    results = [e.result for e in events if e.kind == "result"]
    assert sorted(r.id for r in results) == sorted(ONLY)
    assert all(r.status == "passed" and r.score == 1 for r in results), results
    info = events[-1].run
    assert (info.status, info.total, info.done, info.passed) == ("finished", 2, 2, 2)
    summary = run.summary()
    assert summary[-1].domain == "all" and summary[-1].success_rate == 1
    assert [r.id for r in run.results()] == [r.id for r in results]
    assert "<html" in run.report().lower()
    traj = run.file("files-copy-notes", "trajectory.jsonl")
    assert traj.strip().startswith(b"{")
    assert httpx.get(run.report_url()).status_code == 200
    assert "ticket=" in run.watch_url()
    assert run.live().run.id == run.id
    cmp = api.runs.compare(run, run.id)
    assert cmp["overall"]["delta"] == 0 and {t["change"] for t in cmp["tasks"]} == {"same"}
    assert run.wait().status == "finished"
    run.cancel()  # forgets the ended run
    with pytest.raises(deskrun.NotFound):
        api.runs.get(run.id)


def test_cancel_a_run_under_way(api: Any) -> None:
    run = api.runs.start("tasks/files", agent="replay", parallel=1, trials=2)
    final = run.cancel()
    assert final.status == "cancelled" and final.done < final.total


def test_live_tasks(api: Any) -> None:
    run = api.runs.start("tasks/terminal", agent="replay", parallel=1, only=["terminal-echo-file"])
    shown = None
    for ev in run.events(interval=0.1):
        if ev.kind == "end":
            break
        live = run.live()
        acting = [t for t in live.tasks if t.session]
        if acting and shown is None:
            t = acting[0]
            try:
                shown = run.live_screen(t.task, max_width=200)
                assert re.search(r"/v1/sessions/[0-9a-f]+/view\?", run.live_view_url(t.task))
            except deskrun.NotFound:
                shown = None  # the task ended between the two calls
    assert run.refresh().status == "finished"
    if shown is not None:
        assert shown[:2] == b"\xff\xd8", "a JPEG thumbnail"


def test_compare_results_without_a_server() -> None:
    T = deskrun.TaskResult
    base = [T(id="a", domain="d", score=1, status="passed"), T(id="b", domain="d", score=0, status="failed"),
            T(id="c", domain="e", score=1, status="passed")]
    new = [T(id="a", domain="d", score=0, status="failed"), T(id="b", domain="d", score=1, status="passed"),
           T(id="z", domain="e", score=1, status="passed")]
    c = deskrun.compare_results(base, new)
    assert [(t["id"], t["change"]) for t in c["tasks"]] == [("a", "newly failing"), ("c", "removed"), ("z", "added"), ("b", "newly passing")]
    assert c["overall"] == {"domain": "all", "tasks": 2, "base_mean": 0.5, "new_mean": 0.5, "delta": 0.0, "newly_failing": 1, "newly_passing": 1}
