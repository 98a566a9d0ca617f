"""One ``mcpServers`` file, read one way: ``planfilter serve`` (planfilter.gateway) and
``planfilter contracts infer`` (planfilter.infer.sources) accept the same files, see the same
servers in them, and refuse a bad one with the same message."""

from __future__ import annotations

import json

import pytest

from planfilter.core.servers import ConfigError, ServerSpec, is_servers_document
from planfilter.gateway import load_config
from planfilter.infer import sources

ENV = {"ROOT": "/srv/files", "HOST": "mcp.example.org", "TOKEN": "t0k"}
GOOD = {
    "mcpServers": {
        "fs": {"command": "fs-server", "args": ["--root", "${ROOT}"], "cwd": "${ROOT}",
               "env": {"LOG": "quiet"}},
        "web": {"type": "http", "url": "https://${HOST}/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}"}},
    },
}
BAD = [
    ({"mcpServers": {"fs": {"command": "x", "args": ["${NOT_SET}"]}}}, "NOT_SET is not set"),
    ({"mcpServers": {"fs": {"command": "x", "url": "http://h/mcp"}}}, "not both"),
    ({"mcpServers": {"fs": {"command": "x", "headers": {}}}}, "unknown field(s) ['headers']"),
    ({"mcpServers": {"web": {"url": "ftp://h"}}}, "expected an http(s) URL"),
    ({"mcpServers": {"a.b": {"command": "x"}}}, "no '.'"),
    ({"mcpServers": {"fs": {"args": []}}}, "needs 'command' (stdio) or 'url'"),
    ({"mcpServers": {}}, "at least one server"),
]


def infer_reads(path, environ, monkeypatch) -> tuple[ServerSpec, ...]:
    """The servers ``contracts infer`` would ask for their tools (none is started)."""
    asked: list[ServerSpec] = []
    monkeypatch.setattr(sources, "list_server_tools",
                        lambda server, timeout=30.0: asked.append(server) or [])
    assert sources.read_source(path, environ) == ()
    return tuple(asked)


@pytest.mark.parametrize("key", ["mcpServers", "servers"])
def test_serve_and_infer_see_the_same_servers(tmp_path, monkeypatch, key):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({key: GOOD["mcpServers"]}), encoding="utf-8")
    served = load_config(path, environ=ENV)
    assert infer_reads(path, ENV, monkeypatch) == served
    fs, web = served
    assert (fs.args, fs.cwd, fs.env) == (("--root", "/srv/files"), "/srv/files", {"LOG": "quiet"})
    assert (web.url, web.headers) == ("https://mcp.example.org/mcp",
                                      {"Authorization": "Bearer t0k"})


@pytest.mark.parametrize("doc, message", BAD)
def test_serve_and_infer_refuse_a_bad_file_alike(tmp_path, monkeypatch, doc, message):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ConfigError) as served:
        load_config(path, environ=ENV)
    with pytest.raises(ConfigError) as inferred:
        infer_reads(path, ENV, monkeypatch)
    assert str(served.value) == str(inferred.value)
    assert message in str(served.value) and str(path) in str(served.value)


def test_a_tools_list_is_not_a_servers_file():
    assert is_servers_document(GOOD)
    assert not is_servers_document({"tools": [], "servers": {}})
    assert not is_servers_document([{"name": "x"}])
