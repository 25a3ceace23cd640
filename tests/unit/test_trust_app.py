"""Trust boundaries of the app: the operator's keys go only where the operator set them up for, the
app listens on loopback unless asked, uploads are capped at the trace limit, trace and server text
shows as text (never a Markdown image a viewer's browser would fetch), and the hop table's CSV holds
no formula."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from flow.cli.app import app_command
from flow.providers import PRESETS, KeyChoice, Preset, key_env_for, key_for, same_endpoint, server_for
from flow.servers.spec import ServerSpec
from flow.trace.files import MAX_TRACE_BYTES, read_trace_bytes
from flow.views.table import hop_dataframe
from flow_ui.state import UPLOAD_LIMIT_MB
from flow_ui.text import plain, spreadsheet_safe, table_csv
from helpers import ROOT

OPERATOR_KEY = "sk-operator-secret-9c41d2"
VISITOR_KEY = "sk-visitor-own-key-55e0"
IMAGE = "![pixel](http://127.0.0.1:9/pixel.png)"
OPENAI = next(p for p in PRESETS if p.name == "OpenAI")
DEEPSEEK = next(p for p in PRESETS if p.name == "DeepSeek")
OLLAMA = next(p for p in PRESETS if p.name.startswith("Ollama"))


# --- which key goes where: the pure decision -------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1",
        "https://api.openai.com/v1/",
        "HTTPS://API.OPENAI.COM/v1",
        "https://api.openai.com:443/v1",
    ],
)
def test_the_same_endpoint_written_another_way_is_the_same(url):
    assert same_endpoint(url, "https://api.openai.com/v1")


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com.evil.example/v1",  # a longer host
        "https://api.openai.com@evil.example/v1",  # user-info before the real host
        "https://user:pw@api.openai.com/v1",  # user-info the operator did not set
        "https://evil.example/v1#@api.openai.com/v1",
        "https://evil.example\\@api.openai.com/v1",
        "https://api.openai.com\t.evil.example/v1",
        "https://api.openai.com%2eevil.example/v1",
        "https://api.openai.com./v1",
        "http://api.openai.com/v1",  # another scheme
        "https://api.openai.com:8443/v1",  # another port
        "https://api.openai.com:99999/v1",
        "https://api.openai.com/v2",  # another path
        "https://api.openai.com/v1/../../x",
        "https://api.openai.com/v1?next=https://evil.example",
        "api.openai.com/v1",
        "ftp://api.openai.com/v1",
        "",
        " https://api.openai.com/v1",
        "https://api.openai.com/v1\n",
    ],
)
def test_anything_else_is_another_endpoint(url):
    assert not same_endpoint(url, "https://api.openai.com/v1")


def test_a_typed_key_goes_where_its_typist_says():
    env = {"OPENAI_API_KEY": OPERATOR_KEY}
    assert key_for(OPENAI, "https://evil.example/v1", f" {VISITOR_KEY} ", env) == KeyChoice(VISITOR_KEY)


def test_an_environment_key_goes_to_its_own_base_url_only():
    env = {"OPENAI_API_KEY": OPERATOR_KEY, "DEEPSEEK_API_KEY": "sk-deepseek"}
    assert key_for(OPENAI, "https://api.openai.com/v1", "", env) == KeyChoice(OPERATOR_KEY, env="OPENAI_API_KEY")
    assert key_for(OPENAI, "https://api.openai.com.evil.example/v1", "", env) == KeyChoice(
        None, withheld="OPENAI_API_KEY"
    )
    assert key_for(DEEPSEEK, "https://api.deepseek.com/v1", "", env) == KeyChoice("sk-deepseek", env="DEEPSEEK_API_KEY")
    # The OpenAI key is not another provider's key, even at that provider's own URL.
    assert key_for(DEEPSEEK, "https://api.deepseek.com/v1", "", {"OPENAI_API_KEY": OPERATOR_KEY}) == KeyChoice(
        None, withheld="OPENAI_API_KEY"
    )
    assert key_for(DEEPSEEK, "http://127.0.0.1:1/v1", "", env).key is None


def test_the_page_names_a_variable_only_for_a_url_its_key_would_go_to():
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    assert key_env_for(DEEPSEEK, "https://api.deepseek.com/v1/", env) == "DEEPSEEK_API_KEY"
    assert key_env_for(DEEPSEEK, "http://127.0.0.1:1/v1", env) == "OPENAI_API_KEY"
    assert key_env_for(OPENAI, "https://api.openai.com/v1", env) is None
    assert key_env_for(OPENAI, "https://api.openai.com/v1", {}) == "OPENAI_API_KEY"
    assert key_env_for(DEEPSEEK, "https://evil.example/v1", {}) is None


def test_openai_base_url_says_where_openai_api_key_goes():
    env = {"OPENAI_API_KEY": OPERATOR_KEY, "OPENAI_BASE_URL": "https://api.siliconflow.cn/v1"}
    sf = next(p for p in PRESETS if p.name == "SiliconFlow")
    assert key_for(sf, "https://api.siliconflow.cn/v1/", "", env).key == OPERATOR_KEY
    # Set up for another provider, the key is not handed to OpenAI either.
    assert key_for(OPENAI, "https://api.openai.com/v1", "", env) == KeyChoice(None, withheld="OPENAI_API_KEY")


def test_a_keyless_local_preset_sends_no_key_to_a_typed_url():
    env = {"OPENAI_API_KEY": OPERATOR_KEY, "OLLAMA_API_KEY": "local-key"}
    assert key_for(OLLAMA, OLLAMA.base_url, "", env) == KeyChoice("local-key", env="OLLAMA_API_KEY")
    choice = key_for(OLLAMA, "http://127.0.0.1:1/v1", "", env)
    assert choice.key is None and choice.withheld == "OLLAMA_API_KEY"
    assert key_for(Preset("x", "http://h/v1", "m", "X_KEY", needs_key=False), "http://h/v1", "", {}) == KeyChoice(None)


SERVER_TOKEN = "mcp-operator-token-7f3a1e"


def test_a_servers_credential_goes_only_to_a_base_url_configured_for_a_key():
    """Hosted MCP: the provider reaches the server with its token, which rides in the model request; like the key, it
    goes to a configured provider's URL and never to a typed one."""
    env = {"OPENAI_API_KEY": OPERATOR_KEY}
    server = ServerSpec(transport="http", url="https://mcp.example/mcp", bearer_token=SERVER_TOKEN)
    assert server_for(server, OPENAI, "https://api.openai.com/v1", env).spec.token() == SERVER_TOKEN
    typed = server_for(server, OPENAI, "https://evil.example/v1", env)
    assert typed.spec.token() is None and typed.spec.url == server.url
    from_env = ServerSpec(transport="http", url="https://mcp.example/mcp", bearer_token_env="MCP_TEST_TOKEN")
    import os

    os.environ["MCP_TEST_TOKEN"] = SERVER_TOKEN
    try:
        withheld = server_for(from_env, DEEPSEEK, "http://127.0.0.1:1/v1", env)
        assert withheld.spec.token() is None and withheld.withheld == "MCP_TEST_TOKEN"
        assert server_for(from_env, DEEPSEEK, "https://api.deepseek.com/v1", env).withheld is None
    finally:
        del os.environ["MCP_TEST_TOKEN"]
    assert server_for(ServerSpec(), OPENAI, "https://evil.example/v1", env).spec == ServerSpec()  # the demo: none


# --- which key goes where: the Run page against a recording endpoint -------------------------------


@dataclass
class Recorder:
    """A local model endpoint that keeps the key headers of every request (Authorization, x-api-key)."""

    url: str
    authorizations: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    reply: tuple[int, dict[str, Any]] = (200, {})


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    box: dict[str, Recorder] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            box["r"].bodies.append(self.rfile.read(int(self.headers.get("content-length") or 0)))
            sent = (self.headers.get("authorization") or "", self.headers.get("x-api-key") or "")
            box["r"].authorizations.append(" ".join(sent).strip())
            status, body = box["r"].reply
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    box["r"] = Recorder(f"http://127.0.0.1:{server.server_address[1]}/v1", reply=(200, completion("done")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield box["r"]
    server.shutdown()
    server.server_close()


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }


def app(lang: str = "en") -> AppTest:
    at = AppTest.from_file(str(ROOT / "flow_ui" / "app.py"), default_timeout=60).run()
    at.radio(key="lang_choice").set_value(lang).run()
    assert not at.exception
    return at


def provider_page(preset: Preset, base_url: str, *, lang: str = "en", typed_key: str = "") -> AppTest:
    """The Run page set to a provider preset, direct mode, with a base URL (and a key) typed."""
    at = app(lang)
    at.switch_page("app_pages/run.py").run()
    at.radio(key=f"mode_{lang}").set_value("direct").run()
    at.radio(key=f"api_{lang}").set_value(preset.api).run()
    at.radio(key=f"backend_{lang}").set_value("provider").run()
    at.selectbox(key=f"preset_{preset.api}_{lang}").set_value(preset).run()
    at.text_input(key=f"base_url_{preset.name}").set_value(base_url).run()
    if typed_key:
        next(w for w in at.text_input if w.proto.type == w.proto.PASSWORD).set_value(typed_key).run()
    assert not at.exception, at.exception
    return at


def every_text(at: AppTest) -> list[str]:
    """Every string the page hands Streamlit to render as Markdown: bodies, captions, alerts, labels."""
    texts = [
        e.value
        for kind in ("markdown", "caption", "info", "error", "warning", "success", "title", "header", "subheader")
        for e in getattr(at, kind)
    ]
    widgets = ("text_input", "text_area", "selectbox", "multiselect", "radio", "checkbox", "toggle", "button")
    return texts + [w.label for kind in widgets for w in getattr(at, kind)]


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_a_typed_url_without_a_typed_key_gets_no_operator_key(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    at = provider_page(OPENAI, recorder.url)
    assert at.button(key="run").disabled
    assert [w.value for w in at.warning] == [
        "$OPENAI_API_KEY is not sent to this base URL: a key from the environment "
        "goes only to the URL it was set up for. Type a key to send one."
    ]
    # A crafted client can press a disabled button (the server does not check): the key is still not sent.
    run = at.button(key="run")
    run.proto.disabled = False
    run.click().run()
    assert not at.exception
    assert all(OPERATOR_KEY not in a for a in recorder.authorizations), recorder.authorizations


def test_with_no_key_anywhere_a_typed_url_asks_for_a_typed_key(recorder, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    at = provider_page(DEEPSEEK, recorder.url)
    assert [w.value for w in at.warning] == ["This provider needs an API key: type it."]
    assert at.button(key="run").disabled
    at = provider_page(DEEPSEEK, DEEPSEEK.base_url)
    assert [w.value for w in at.warning] == ["This provider needs an API key: type it, or set $DEEPSEEK_API_KEY."]


def test_the_withheld_key_line_speaks_chinese(recorder, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", OPERATOR_KEY)
    at = provider_page(DEEPSEEK, recorder.url, lang="zh")
    assert len(at.warning) == 1 and at.warning[0].value.startswith(
        "环境变量 DEEPSEEK_API_KEY 中的 Key 不会发给这个 Base URL"
    )


def test_a_keyless_preset_at_a_typed_url_runs_without_the_operators_keys(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("OLLAMA_API_KEY", OPERATOR_KEY + "-ollama")
    at = provider_page(OLLAMA, recorder.url)
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    assert recorder.authorizations and all(OPERATOR_KEY not in a for a in recorder.authorizations)
    state = at.session_state["app"]
    assert state.loaded[state.last_run].trace.meta.outcome == "ok"


def test_the_operators_key_still_goes_to_the_url_it_was_set_up_for(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", recorder.url)
    at = provider_page(OPENAI, recorder.url + "/")
    assert not at.warning and not at.button(key="run").disabled
    at.button(key="run").click().run()
    assert recorder.authorizations == [f"Bearer {OPERATOR_KEY}"]
    state = at.session_state["app"]
    assert OPERATOR_KEY not in state.loaded[state.last_run].trace.to_json()


def test_a_visitors_typed_key_goes_to_their_url(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    at = provider_page(OPENAI, recorder.url, typed_key=VISITOR_KEY)
    assert not at.warning
    at.button(key="run").click().run()
    assert recorder.authorizations == [f"Bearer {VISITOR_KEY}"]


def test_a_servers_error_with_a_markdown_image_shows_as_text_on_the_run_page(recorder, monkeypatch):
    recorder.reply = (400, {"error": {"message": f"bad request {IMAGE}", "type": "invalid_request_error"}})
    at = provider_page(OPENAI, recorder.url, typed_key=VISITOR_KEY)
    at.button(key="run").click().run()
    assert not at.exception
    texts = every_text(at)
    assert not [t for t in texts if "![" in t]
    assert any(IMAGE in unescaped(e.value) for e in at.error)  # the line is there, as text
    # The live hop lines in the status box carry the server's words too.
    assert any("bad request ![pixel]" in unescaped(m.value) and "→" in m.value for m in at.markdown)


# --- trace text on the Step, Hops and Compare pages -----------------------------------------------


def hostile_trace() -> bytes:
    """The Beijing sample with a Markdown image in its question, title, note, summaries and first message."""
    data = json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text(encoding="utf-8"))
    data["meta"]["question"] = f"question {IMAGE}"
    data["meta"]["title"] = {"en": f"title {IMAGE}", "zh": f"标题 {IMAGE}"}
    data["meta"]["note"] = {"en": f"note {IMAGE}", "zh": f"说明 {IMAGE}"}
    for hop in data["hops"]:
        hop["summary"] = f'=HYPERLINK("http://evil.example","x") {IMAGE}'
    next(h for h in data["hops"] if h["kind"] == "user.message")["payload"]["content"] = f"# heading {IMAGE}"
    return json.dumps(data, ensure_ascii=False).encode()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_trace_text_with_a_markdown_image_shows_as_text_on_every_page(lang):
    at = app(lang)
    at.radio(key=f"step_source_{lang}").set_value("upload").run()
    at.file_uploader(key="step_upload").set_value(("hostile.json", hostile_trace(), "application/json")).run()
    assert not at.exception and not at.error
    texts = every_text(at)
    assert not [t for t in texts if "![" in t], [t for t in texts if "![" in t]
    # The Step page's title, note and hops reach the browser only inside the viewer's data, which the
    # viewer writes as text (textContent), never as Markdown or HTML: there they stay exactly as written.
    data = json.loads(at.get("bidi_component")[0].proto.json)
    bundle = (json.loads(data) if isinstance(data, str) else data)["bundle"]
    assert bundle["title"][lang].endswith(("title " if lang == "en" else "标题 ") + IMAGE)
    assert bundle["note"][lang].endswith(IMAGE)
    assert not [m.value for m in at.markdown if IMAGE in unescaped(m.value)]

    upload = at.session_state["app"].step_key
    at.switch_page("app_pages/hops.py").run()
    at.selectbox(key=f"hops_trace_{lang}").set_value(upload).run()
    assert not at.exception
    assert not [t for t in every_text(at) if "![" in t]

    at.switch_page("app_pages/compare.py").run()
    at.selectbox(key=f"compare_a_{lang}").set_value(upload).run()
    assert not at.exception
    texts = every_text(at)
    assert not [t for t in texts if "![" in t]
    # The title heads its diagram in the page's own HTML, escaped: there it is text, as it came.
    bodies = [e.proto.body for e in at.get("html") if "compare-diagrams" in e.proto.body]
    assert bodies and html.escape(IMAGE) in bodies[0] and "<img src=http" not in bodies[0]


def _sample_data() -> dict[str, Any]:
    return json.loads((ROOT / "sample_traces" / "beijing-mcp.json").read_text(encoding="utf-8"))


def _with(change: Any) -> bytes:
    data = _sample_data()
    change(data)
    return json.dumps(data).encode()


# Files whose one error line quotes the file: a value, a key, a kind, a name.
HOSTILE_UPLOADS = {
    "file name": (f"{IMAGE}.json", b"{ not json"),
    "actor": ("a.json", _with(lambda d: d["hops"][0].update(source=IMAGE))),
    "kind": ("a.json", _with(lambda d: d["hops"][0].update(kind=IMAGE))),
    "step": ("a.json", _with(lambda d: d["hops"][0].update(step=IMAGE))),
    "key in a path": ("a.json", _with(lambda d: d["hops"][0]["payload"].update({IMAGE: "\ud800"}))),
}
QUESTION = {"at": {"kind": "llm.request"}, "ask": "?", "choices": ["a", "b"], "answer": 1}
HOSTILE_QUESTIONS = {
    "file name": (f"{IMAGE}.json", b"[]"),
    "unknown field": ("q.json", json.dumps({"questions": [], IMAGE: 1}).encode()),
    "language": ("q.json", json.dumps({"questions": [{**QUESTION, "ask": {IMAGE: "x"}}]}).encode()),
    "kind": ("q.json", json.dumps({"questions": [{**QUESTION, "at": {"kind": IMAGE}}]}).encode()),
    "version": ("q.json", json.dumps({"version": IMAGE, "questions": []}).encode()),
}


def shown_error(at: AppTest) -> str:
    assert not at.exception
    [error] = at.error
    return error.value


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(HOSTILE_UPLOADS))
def test_an_upload_error_quoting_the_file_is_text_not_markdown(case, lang):
    name, content = HOSTILE_UPLOADS[case]
    at = app(lang)
    at.radio(key=f"step_source_{lang}").set_value("upload").run()
    at.file_uploader(key="step_upload").set_value((name, content, "application/json")).run()
    line = shown_error(at)
    assert not re.search(r"(?<!\\)[\[\]<>]", line), line  # every bracket escaped: no image, link or tag
    assert IMAGE in unescaped(line)  # the line is there, as the characters it quotes


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(HOSTILE_QUESTIONS))
def test_a_questions_file_error_quoting_the_file_is_text_not_markdown(case, lang):
    name, content = HOSTILE_QUESTIONS[case]
    at = app(lang)
    at.radio(key=f"step_source_{lang}").set_value("upload").run()
    trace = (ROOT / "sample_traces" / "beijing-mcp.json").read_bytes()
    at.file_uploader(key="step_upload").set_value(("t.json", trace, "application/json")).run()
    at.file_uploader(key="step_questions_upload").set_value((name, content, "application/json")).run()
    line = shown_error(at)
    assert not re.search(r"(?<!\\)[\[\]<>]", line), line  # every bracket escaped: no image, link or tag
    assert IMAGE in unescaped(line)


@pytest.mark.parametrize(
    "text",
    [
        IMAGE,
        "[link](http://x)",
        "<img src=http://x/p.png>",
        "*a* _b_ `c` ~d~ $e$ | f &amp;",
        "# h\n- i\n+ j\n1. k\n2) l\n===",
        ":red[x] ![a][1]\n\n[1]: http://x",
        "get_weather · tools/call · 北京",
        "\\![x](y)",
    ],
)
def test_plain_escapes_every_markdown_construct_and_keeps_the_characters(text):
    escaped = plain(text)
    assert unescaped(escaped) == text
    assert "![" not in escaped and not re.search(r"(?<!\\)[\[<`*$|~&]", escaped)
    assert not re.search(r"^\s*([#+=-]|\d+[.)])", escaped, re.MULTILINE)


# --- the hop table's CSV -------------------------------------------------------------------------


def test_the_hop_table_csv_holds_no_formula_and_the_table_keeps_its_text():
    frame = hop_dataframe(read_trace_bytes(hostile_trace(), name="hostile.json"), lang="en")
    frame.loc[0, "summary"] = '=HYPERLINK("http://evil.example","x")'
    frame.loc[1, "summary"] = "+1+2"
    frame.loc[2, "summary"] = "-1"
    frame.loc[3, "summary"] = "@SUM(A1)"
    frame.loc[4, "summary"] = "\tTAB"
    frame.loc[5, "summary"] = "\rCR"
    rows = list(csv.reader(io.StringIO(table_csv(frame).decode("utf-8-sig"))))
    assert rows[0] == list(frame.columns)
    cells = [cell for row in rows[1:] for cell in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert rows[1][list(frame.columns).index("summary")] == "'" + '=HYPERLINK("http://evil.example","x")'
    shown = frame.loc[0, "summary"]
    assert isinstance(shown, str) and shown.startswith("=HYPERLINK")  # what the table shows is untouched

    assert spreadsheet_safe(-5) == -5 and spreadsheet_safe("北京") == "北京"


def test_the_hops_page_exports_its_own_csv_and_the_built_in_export_is_off():
    at = app()
    at.switch_page("app_pages/hops.py").run()
    assert not at.exception
    button = next(e for e in at.get("download_button") if "hops_csv" in e.proto.id)
    assert button.proto.label == "Download this table (CSV)"
    assert _settings(app_command(port=8501, environ={}))["client.disableDataExport"] == "true"


# --- what the app exposes on a network ----------------------------------------------------------


def _settings(command: list[str]) -> dict[str, str]:
    """The settings a command line `mcp-flow app` runs gives Streamlit (--name value pairs before any --)."""
    options = command[command.index("run") + 2 :]
    if "--" in options:
        options = options[: options.index("--")]
    return {name.removeprefix("--"): value for name, value in zip(options[::2], options[1::2], strict=True)}


def test_the_app_binds_loopback_and_caps_uploads_at_the_trace_limit():
    config = _settings(app_command(port=8501, environ={}))
    assert config["server.address"] == "127.0.0.1"
    assert _settings(app_command(port=8501, lan=True, environ={}))["server.address"] == "0.0.0.0"
    # Streamlit's browser counts a megabyte as 10^6 bytes, its server as 2^20: the widget's limit is the trace limit
    # rounded up in the smaller unit, so the widget never refuses a file the CLI loads.
    assert int(config["server.maxUploadSize"]) == UPLOAD_LIMIT_MB
    assert (UPLOAD_LIMIT_MB - 1) * 10**6 < MAX_TRACE_BYTES <= UPLOAD_LIMIT_MB * 10**6


def test_the_app_and_the_cli_open_the_same_files_up_to_the_one_limit(tmp_path, capsys):
    from flow.cli import main

    sample = (ROOT / "sample_traces" / "beijing-mcp.json").read_bytes()
    at_limit = sample + b" " * (MAX_TRACE_BYTES - len(sample))
    path = tmp_path / "at-limit.json"
    path.write_bytes(at_limit)
    assert main(["validate", str(path)]) == 0
    at = app()
    at.radio(key="step_source_en").set_value("upload").run()
    [widget] = [w for w in at.get("file_uploader") if w.proto.id.endswith("step_upload")]
    assert widget.proto.max_upload_size_mb == UPLOAD_LIMIT_MB
    at.file_uploader(key="step_upload").set_value(("at-limit.json", at_limit, "application/json")).run()
    assert not at.exception and not at.error
    assert at.session_state["app"].step_key.startswith("upload:")
    del at_limit
    path.write_bytes(sample + b" " * (MAX_TRACE_BYTES + 1 - len(sample)))
    capsys.readouterr()
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.strip() == f"{path}: 50.0 MiB is over the 50 MiB limit for a trace file"
    at.file_uploader(key="step_upload").set_value(("over.json", path.read_bytes(), "application/json")).run()
    [error] = at.error
    assert unescaped(error.value).startswith("over.json: ") and "over the 50" in error.value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_run_page_says_before_sending_what_the_preset_is_known_to_do_with_the_options(lang):
    from flow.text.errors import PROVIDER_NOTES

    llama = next(p for p in PRESETS if p.name.startswith("llama.cpp"))
    at = provider_page(llama, llama.base_url, lang=lang)
    said = PROVIDER_NOTES["tool_choice_required_fails"][lang]
    assert not any(said in i.value for i in at.info)  # auto: nothing to say
    at.selectbox(key=f"tool_choice_{lang}").set_value("required").run()
    assert any(said in i.value for i in at.info)
    refused = PROVIDER_NOTES["null_content_refused"][lang]
    assert not any(refused in i.value for i in at.info)
    adapt = next(c for c in at.checkbox if c.key == f"adapt_{lang}")
    assert adapt.value is True  # by default the app sends what every compatible server accepts
    adapt.uncheck().run()
    assert any(refused in i.value for i in at.info)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("url", ["https://[evil]/v1", "ftp://example.com/v1", "https://example.com:99999/v1"])
def test_a_base_url_no_request_can_go_to_is_one_line_on_the_run_page_and_nothing_runs(url, lang):
    at = provider_page(OPENAI, url, lang=lang, typed_key=VISITOR_KEY)
    assert not at.exception
    [error] = at.error
    assert "\n" not in error.value and ("base URL" in error.value if lang == "en" else "URL" in error.value)
    assert not re.search(r"(?<!\\)[\[\]<>]", error.value)  # the URL quoted as text
    assert at.button(key="run").disabled
    run = at.button(key="run")
    run.proto.disabled = False  # a crafted client presses it anyway: still one line, no run, no page error
    run.click().run()
    assert not at.exception and at.session_state["app"].runs == 0


def test_the_run_page_offers_the_presets_of_the_chosen_api_and_anthropics_key_stays_home(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", OPERATOR_KEY + "-anthropic")
    anthropic = next(p for p in PRESETS if p.api == "messages")
    at = provider_page(anthropic, anthropic.base_url)
    offered = at.selectbox(key="preset_messages_en").options
    assert offered == [p.name for p in PRESETS if p.api == "messages"]
    assert not at.warning  # its own key is there, for its own URL
    at = provider_page(anthropic, recorder.url)  # a typed URL: neither key goes there
    assert [w.value for w in at.warning][0].startswith("$ANTHROPIC_API_KEY is not sent to this base URL")
    assert at.button(key="run").disabled
    at = provider_page(anthropic, recorder.url, typed_key="typed-key")  # a typed key goes where its typist says
    at.button(key="run").click().run()
    assert recorder.authorizations and all("typed-key" in a for a in recorder.authorizations)
    assert all(OPERATOR_KEY not in a for a in recorder.authorizations), recorder.authorizations


def test_a_hosted_run_to_a_typed_url_names_the_configured_server_without_its_token(recorder, monkeypatch, tmp_path):
    servers = tmp_path / "servers.json"
    servers.write_text(
        json.dumps({"mcpServers": {"remote": {"url": "https://mcp.example/mcp", "bearer_token_env": "MCP_TEST_TOKEN"}}})
    )
    monkeypatch.setenv("MCP_FLOW_SERVERS", str(servers))
    monkeypatch.setenv("MCP_TEST_TOKEN", SERVER_TOKEN)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    at = app()
    at.switch_page("app_pages/run.py").run()
    at.radio(key="mode_en").set_value("hosted").run()
    at.radio(key="api_en").set_value("responses").run()
    at.selectbox(key="server_en").set_value("remote").run()
    at.radio(key="backend_en").set_value("provider").run()
    responses = next(p for p in PRESETS if p.api == "responses")
    at.selectbox(key="preset_responses_en").set_value(responses).run()
    at.text_input(key=f"base_url_{responses.name}").set_value(recorder.url).run()
    next(w for w in at.text_input if w.proto.type == w.proto.PASSWORD).set_value(VISITOR_KEY).run()
    assert any(w.value.startswith("$MCP_TEST_TOKEN, the MCP server's credential, is not sent") for w in at.warning)
    at.button(key="run").click().run()
    assert not at.exception, at.exception
    [sent] = recorder.bodies
    body = json.loads(sent)
    assert body["tools"][0]["server_url"] == "https://mcp.example/mcp" and "headers" not in body["tools"][0]
    assert SERVER_TOKEN.encode() not in sent
