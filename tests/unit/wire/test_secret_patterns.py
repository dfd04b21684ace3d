"""The secret-shaped text list: what it masks, what it must leave alone (property tests), and that the
extension is generated from the same list."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabpilot import paths
from tabpilot.wire.secret_patterns import DEFAULT_PATTERNS, REDACTED, luhn_ok, mask


def _with_check_digit(body: str) -> str:
    """`body` followed by the digit that makes it pass the Luhn check."""
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


SECRETS = [
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111111111111111",
    "5500 0000 0000 0004",
    "3782 822463 10005",
    "4111\u00a01111\u00a01111\u00a01111",
    "4111&nbsp;1111&nbsp;1111&nbsp;1111",
    "4111\u2009-\u20091111\u2009-\u20091111\u2009-\u20091111",
    "5500\u200b0000\u200b0000\u200b0004",
    "3782&#160;822463&#xA0;10005",
    "AKIAIOSFODNN7EXAMPLE",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabc+/=\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "ghp_" + "a1B2" * 9,
    "github_pat_" + "x" * 30,
    "xoxb-123456789012-abcdefghij",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "sk-proj-" + "abcDEF123_-" * 3,
    "sk-" + "A1b2C3d4" * 4,
    "sk-ant-api03-" + "Zx9_" * 8,
]


def test_each_kind_of_secret_is_masked_in_a_sentence() -> None:
    for secret in SECRETS:
        out = mask(f"before {secret} after")
        assert secret not in out and REDACTED in out, secret
        assert (out.startswith("before ") and out.endswith(" after")) or "PRIVATE KEY" in secret


def test_a_card_number_must_pass_luhn() -> None:
    assert mask("4111 1111 1111 1112") == "4111 1111 1111 1112"
    assert mask(_with_check_digit("5" + "1" * 14)) == REDACTED


ordinary = st.one_of(
    # ids: short numbers, prefixed ids, UUIDs, hex digests
    st.integers(min_value=0, max_value=10**12 - 1).map(str),
    st.integers(min_value=0, max_value=10**9).map(lambda n: f"ORD-{n:08d}"),
    st.uuids().map(str),
    st.binary(min_size=20, max_size=20).map(bytes.hex),
    # prices
    st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False).map(lambda d: f"${d:,}"),
    st.integers(min_value=0, max_value=10**9).map(lambda n: f"{n / 100:,.2f} EUR"),
    # dates and times
    st.dates().map(lambda d: d.isoformat()),
    st.datetimes().map(lambda d: d.isoformat(sep=" ")),
    st.dates().map(lambda d: d.strftime("%d/%m/%Y")),
    # phone numbers
    st.from_regex(r"\+[1-9][0-9]{0,2} [0-9]{3} [0-9]{3} [0-9]{4}", fullmatch=True),
    st.from_regex(r"\([0-9]{3}\) [0-9]{3}-[0-9]{4}", fullmatch=True),
    st.from_regex(r"0[1-9]( [0-9]{2}){4}", fullmatch=True),
    # ISBNs, with and without dashes
    st.from_regex(r"97[89][0-9]{10}", fullmatch=True),
    st.from_regex(r"97[89]-[0-9]-[0-9]{2}-[0-9]{6}-[0-9]", fullmatch=True),
    st.from_regex(r"[0-9]{9}[0-9X]", fullmatch=True),
    # words that start like token prefixes
    st.sampled_from(["sk-ip the intro", "task-list", "ghp_short", "xoxo hugs", "AKIA", "eyJhbGciOi"]),
)


@given(st.lists(ordinary, min_size=1, max_size=6))
def test_ordinary_text_is_left_alone(words: list[str]) -> None:
    text = "Order " + ", ".join(words) + " - thanks"
    assert mask(text) == text


def test_the_extension_uses_the_same_list() -> None:
    text = (paths.extension_dir() / "worker" / "protocol.js").read_text()
    found = re.search(r"export const REDACT_PATTERNS = Object\.freeze\((\[.*?\])\);", text, re.S)
    assert found and json.loads(found.group(1)) == list(DEFAULT_PATTERNS)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_agent_masks_as_the_host_does() -> None:
    samples = [f"before {s} after" for s in SECRETS] + [
        "4111 1111 1111 1112",
        "Order 12345678 costs $1,234.56 on 2024-05-31, call +1 555 123 4567",
        "ISBN 9783161484100 and 978-3-16-148410-0",
        "task-list sk-ip ghp_short",
    ]
    # page/patterns.js needs no document: it loads under node as it is.
    script = f"""
    globalThis.__tabpilotAgent = {{ commands: Object.create(null), use() {{ return this; }} }};
    const {{ REDACT_PATTERNS }} = await import('./worker/protocol.js');
    await import('./page/patterns.js');
    const agent = globalThis.__tabpilotAgent;
    agent.setPatterns(REDACT_PATTERNS);
    console.log(JSON.stringify({json.dumps(samples)}.map(agent.maskPatterns)));
    """
    done = subprocess.run(
        [shutil.which("node") or "node", "--input-type=module", "-e", script],
        cwd=paths.extension_dir(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [mask(s) for s in samples]
