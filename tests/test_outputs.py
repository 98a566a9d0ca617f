"""Writes that cannot lose data: atomic writes, the output manifest, --force, stale outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planfilter.core.outputs import (
    MANIFEST,
    OutputError,
    OutputFolder,
    atomic_write,
    check_comments,
    check_file_target,
    check_folder,
    comments,
    differences,
)


@settings(max_examples=30, deadline=None)
@given(old=st.binary(max_size=200), new=st.binary(max_size=200))
def test_atomic_write_leaves_the_new_file_and_no_temporary(tmp_path_factory, old, new):
    folder = tmp_path_factory.mktemp("w")
    path = folder / "out.bin"
    path.write_bytes(old)
    atomic_write(path, new)
    assert path.read_bytes() == new
    assert sorted(p.name for p in folder.iterdir()) == ["out.bin"]


def test_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")

    def broken(tmp: Path) -> None:
        tmp.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(path, broken)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_file_planfilter_did_not_write_is_kept_unless_forced(tmp_path):
    (tmp_path / "summary.csv").write_text("mine")
    with pytest.raises(OutputError, match=r"summary.csv: already exists.*--force"):
        OutputFolder(tmp_path).write("summary.csv", "new")
    assert (tmp_path / "summary.csv").read_text() == "mine"
    OutputFolder(tmp_path, force=True).write("summary.csv", "new")
    assert (tmp_path / "summary.csv").read_text() == "new"
    # now listed: replaced without --force
    OutputFolder(tmp_path).write("summary.csv", "newer")
    assert json.loads((tmp_path / MANIFEST).read_text())["files"] == ["summary.csv"]


def test_every_culprit_is_named_at_once(tmp_path):
    (tmp_path / "a").write_text("1")
    (tmp_path / "b").mkdir()
    with pytest.raises(OutputError) as err:
        OutputFolder(tmp_path).check(["a", "b", "c"])
    assert "2 outputs" in str(err.value) and "a: already exists" in str(err.value)
    assert "b: is a folder" in str(err.value)


def test_stale_outputs_are_removed_and_others_kept(tmp_path):
    first = OutputFolder(tmp_path)
    for name in ("report.md", "plot.png"):
        first.write(name, name)
    (tmp_path / "notes.txt").write_text("the user's")
    second = OutputFolder(tmp_path)
    second.write("report.md", "again")
    removed = second.remove_stale(["report.md", "plot.png", "notes.txt"])
    assert [p.name for p in removed] == ["plot.png"]
    assert (tmp_path / "notes.txt").read_text() == "the user's"
    assert json.loads((tmp_path / MANIFEST).read_text())["files"] == ["report.md"]


def test_a_file_in_the_way_of_the_folder_is_an_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_folder(tmp_path / "file")
    with pytest.raises(OutputError, match="file is a file"):
        OutputFolder(tmp_path / "file" / "sub")
    check_folder(tmp_path / "missing" / "deeper")  # made when written
    OutputFolder(tmp_path / "missing" / "deeper").write("x.txt", "x")
    assert (tmp_path / "missing" / "deeper" / "x.txt").is_file()


def test_a_broken_manifest_is_named(tmp_path):
    (tmp_path / MANIFEST).write_text("not json")
    with pytest.raises(OutputError, match="not a planfilter manifest"):
        OutputFolder(tmp_path)


def test_single_file_targets(tmp_path):
    mine = tmp_path / "contracts.yaml"
    mine.write_text("tools: []\n")
    with pytest.raises(OutputError, match="already exists"):
        check_file_target(mine)
    check_file_target(mine, replaces=mine)  # updating the input in place
    check_file_target(mine, force=True)
    with pytest.raises(OutputError, match="is a folder"):
        check_file_target(tmp_path)


@settings(max_examples=30, deadline=None)
@given(words=st.lists(st.from_regex(r"[a-z][a-z ]{0,10}[a-z]", fullmatch=True), min_size=1,
                      max_size=4))
def test_comments_lost_by_a_rewrite_need_force(tmp_path_factory, words):
    path = tmp_path_factory.mktemp("c") / "r.yaml"
    text = "".join(f"# {w}\n" for w in words) + "tools: []  # inline note\n"
    path.write_text(text)
    assert comments(text) == [*words, "inline note"]
    check_comments(path, text)  # every comment kept
    with pytest.raises(OutputError, match="drop"):
        check_comments(path, "tools: []\n")
    check_comments(path, "tools: []\n", force=True)


def test_differences_name_each_setting():
    assert differences({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"}) == [
        "b (2 -> 3)", "c (unset -> 4)"]
    assert "no settings recorded" in differences(None, {"a": "1"})[0]
