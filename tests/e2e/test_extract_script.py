"""Agent-written extractors through the real MCP client: `interact {action: "scrape", operation:
"extract", script}` on a plain page (the executeScript path) and on a strict-CSP page (the debugger
path): rows, the css_selector root, secrets scrubbed in the page, errors that point at the script's
line, endless loops stopped with the tab usable again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from tabpilot.wire.errors import ErrorCode
from tests.support import browser
from tests.support.mcp_client import call, payload
from tests.support.popup import allow_scripts_on

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module", autouse=True)
def _scripts_allowed(chromium: browser.Chromium, site: Any) -> None:  # pyright: ignore[reportUnusedFunction]
    """Pages here hold secrets on purpose; the agent's scripts on them run with the person's consent
    (given in the popup), so what is tested is what those scripts can still see."""
    allow_scripts_on(chromium, site)


PAGES = ["script/table.html", "script/table-csp.html"]

ROWS = """const rows = [];
for (const tr of root.querySelectorAll('tbody tr')) {
  const [name, price] = [...tr.cells].map((td) => td.textContent.trim());
  rows.push({ name, price: Number(price), currency: window.currency });
}
return rows;"""

PRICES = [
    {"name": "Apple", "price": 1.2, "currency": "EUR"},
    {"name": "Pear", "price": 0.95, "currency": "EUR"},
    {"name": "Plum", "price": 2.5, "currency": "EUR"},
]

SECRET_PASSWORD = "hunter2-Secret"
SECRET_ACCOUNT = "ACCT-998877"


async def extract(client: Client, script: str, **arguments: Any) -> dict[str, Any]:
    """A script extract that must complete; its result."""
    out = await call(client, "interact", action="scrape", operation="extract", script=script, **arguments)
    assert out["status"] == "complete", out
    return out


async def extract_raw(client: Client, script: str, **arguments: Any) -> tuple[bool, dict[str, Any], str]:
    """A script extract: whether it failed, its payload, and the raw tool result as text."""
    result = await client.call_tool(
        "interact", {"action": "scrape", "operation": "extract", "script": script, **arguments}
    )
    return bool(result.is_error), payload(result), json.dumps(result.model_dump(mode="json"))


async def extract_error(client: Client, script: str, **arguments: Any) -> dict[str, Any]:
    """A script extract that must fail; its structured error."""
    failed, data, _ = await extract_raw(client, script, **arguments)
    assert failed, data
    return data


@pytest.mark.parametrize("page", PAGES)
async def test_rows_from_a_script_and_the_css_selector_root(client: Client, site: str, page: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/{page}")
    out = await extract(client, ROWS, css_selector="#prices", options={"telemetry": True})
    assert out["data"] == PRICES
    meta = out["metadata"]
    assert meta["rows_extracted"] == 3 and meta["pages_scraped"] == 1 and meta["redacted"] == 0
    assert "result" not in meta

    # Without css_selector the root is the document: the other table's row comes too.
    whole = await extract(client, ROWS)
    assert [r["name"] for r in whole["data"]] == ["Apple", "Pear", "Plum", "Other"]

    # Awaiting is allowed; one object is one record.
    one = await extract(
        client, "await new Promise((r) => setTimeout(r, 5));\nreturn { title: document.title }"
    )
    assert one["data"] == [{"title": await _title(client)}] and one["metadata"]["result"] == "object"

    missing = await extract_error(client, ROWS, css_selector="#nowhere")
    assert missing["error"] == ErrorCode.ELEMENT_NOT_FOUND
    bad = await extract_error(client, ROWS, css_selector="tr[")
    assert bad["error"] == ErrorCode.INVALID_SELECTOR
    nothing = await extract_error(client, "root.querySelectorAll('tr')")
    assert nothing["error"] == ErrorCode.SCRIPT_ERROR and "return rows" in nothing["message"]
    paged = await extract_error(client, ROWS, options={"paginate": {"next_selector": "#next"}})
    assert paged["error"] == ErrorCode.INVALID_PARAMS


async def _title(client: Client) -> str:
    got = await call(client, "interact", action="execute_js", script="document.title")
    return got["result"]


LEAKY = """const pw = document.querySelector('#pw').value;
const acct = document.querySelector('#acct').textContent;
return [{
  pw, acct, sentence: `user pw is ${pw}; account ${acct}.`,
  [pw]: 'as a key', pin: '42', pin_in_text: 'x42y', pin_number: 42,
  node: document.querySelector('#acct').firstChild,
}];"""


@pytest.mark.parametrize("page", PAGES)
async def test_secrets_the_script_returns_never_leave_the_page(client: Client, site: str, page: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/{page}")
    failed, out, raw = await extract_raw(client, LEAKY)
    assert not failed, out
    [row] = out["data"]
    assert row["pw"] == "[REDACTED]" and row["acct"] == "[REDACTED]"
    assert row["sentence"] == "user pw is [REDACTED]; account [REDACTED]."
    assert row["[REDACTED]"] == "as a key"
    # A 2-character secret replaces only a whole value, never part of a longer string.
    assert row["pin"] == "[REDACTED]" and row["pin_number"] == "[REDACTED]" and row["pin_in_text"] == "x42y"
    assert row["node"] == '[text "[REDACTED]"]'
    assert out["metadata"]["redacted"] == 8
    assert SECRET_PASSWORD not in raw and SECRET_ACCOUNT not in raw

    # Cleared after reading, thrown in an error: still scrubbed.
    script = (
        "const pw = document.querySelector('#pw');\nconst v = pw.value;\npw.value = '';\n"
        "throw new Error('got ' + v);"
    )
    failed, err, raw = await extract_raw(client, script)
    assert failed and err["error"] == ErrorCode.SCRIPT_ERROR
    assert "got [REDACTED]" in err["message"] and SECRET_PASSWORD not in raw
    await call(client, "interact", action="navigate", url=f"{site}/{page}")  # the field back


@pytest.mark.parametrize("page", PAGES)
async def test_errors_point_at_the_line_of_the_script(client: Client, site: str, page: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/{page}")
    thrown = await extract_error(
        client,
        "const rows = [];\nfunction cell(tr) {\n  return tr.cells[9].textContent;\n}\n"
        "for (const tr of root.querySelectorAll('tr')) rows.push(cell(tr));\nreturn rows;",
    )
    assert thrown["error"] == ErrorCode.SCRIPT_ERROR
    assert thrown["line"] == 3 and thrown["column"] == 22, thrown
    assert thrown["message"].startswith("the script threw TypeError")
    # The stack shows the agent's frames only, in the script's own lines.
    frames = [f.strip() for f in thrown["stack"].splitlines() if f.strip().startswith("at ")]
    assert frames == ["at cell (script:3:22)", "at script:5:57"], thrown["stack"]

    syntax = await extract_error(client, "const rows = [];\nrows.push(1;\nreturn rows;")
    assert syntax["error"] == ErrorCode.SCRIPT_ERROR and "SyntaxError" in syntax["message"]
    assert syntax["line"] == 2, syntax


async def test_an_endless_loop_times_out_and_the_tab_is_usable_again(client: Client, site: str) -> None:
    nav = await call(client, "interact", action="new_tab", url=f"{site}/script/table-csp.html")
    tid = nav["tab_id"]
    loop = await extract_error(client, "while (true) {}", tab_id=tid, options={"timeout_ms": 500})
    assert loop["error"] == ErrorCode.TIMEOUT and loop["recovered"] == "terminated"
    assert (await extract(client, ROWS, css_selector="#prices", tab_id=tid))["data"] == PRICES

    # Plain page: the stuck tab is discarded and reloaded under a new id.
    await call(client, "interact", action="navigate", url=f"{site}/script/table.html", tab_id=tid)
    loop = await extract_error(client, "while (true) {}", tab_id=tid, options={"timeout_ms": 500})
    assert loop["error"] == ErrorCode.TIMEOUT and loop["recovered"] == "reloaded", loop
    fresh = loop["new_tab_id"]
    assert (await extract(client, ROWS, css_selector="#prices", tab_id=fresh))["data"] == PRICES
    await call(client, "interact", action="close_tab", tab_id=fresh)


async def test_output_schema_coerces_script_rows_and_names_the_bad_one(client: Client, site: str) -> None:
    texts = (
        "return [...root.querySelectorAll('tbody tr')]"
        ".map((tr) => ({ name: tr.cells[0].textContent, price: tr.cells[1].textContent }));"
    )
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "price": {"type": "number", "maximum": 2}},
        "required": ["name", "price"],
    }
    await call(client, "interact", action="navigate", url=f"{site}/script/table-csp.html")
    failed = await extract_error(client, texts, css_selector="#prices", output_schema=schema)
    assert failed["error"] == ErrorCode.VALIDATION_FAILED
    assert [v["path"] for v in failed["violations"]] == ["$[2].price"]
    # The rows come back coerced ("1.20" -> 1.2), the bad one too.
    assert [r["price"] for r in failed["data"]] == [1.2, 0.95, 2.5]
    ok = await extract(
        client,
        texts,
        css_selector="#prices",
        output_schema={**schema, "properties": {"name": {"type": "string"}, "price": {"type": "number"}}},
    )
    assert [r["price"] for r in ok["data"]] == [1.2, 0.95, 2.5]


async def test_secrets_in_open_shadow_roots_and_same_origin_frames_are_scrubbed(
    client: Client, site: str
) -> None:
    # The script itself turns the fields into password fields with values, then returns them.
    script = """const box = document.querySelector('search-box').shadowRoot.querySelector('#q');
box.type = 'password';
box.value = 'shadow-secret-1';
const coupon = document.querySelector('#frame').contentDocument.querySelector('#coupon');
coupon.type = 'password';
coupon.value = 'frame-secret-2';
return [{ box: box.value, coupon: `code ${coupon.value}` }];"""
    await call(client, "interact", action="navigate", url=f"{site}/shadow.html")
    failed, out, raw = await extract_raw(client, script)
    assert not failed, out
    assert out["data"] == [{"box": "[REDACTED]", "coupon": "code [REDACTED]"}]
    assert "shadow-secret-1" not in raw and "frame-secret-2" not in raw


async def test_a_script_extract_is_rerun_by_its_extraction_id(client: Client, site: str) -> None:
    await call(client, "interact", action="navigate", url=f"{site}/script/table.html")
    first = await extract(client, ROWS, css_selector="#prices")
    ex = first["extraction_id"]
    await call(client, "interact", action="navigate", url=f"{site}/script/table-csp.html")
    again = await call(client, "interact", action="scrape", operation="extract", extraction_id=ex)
    assert again["status"] == "complete" and again["data"] == PRICES
