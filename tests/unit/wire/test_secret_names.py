"""Secret-looking names have one source (wire/secret_names.py): the host's recordings and the
extension's network telemetry read the same words, the extension through generated protocol.js."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tabpilot import paths
from tabpilot.wire import jsgen
from tabpilot.wire.secret_names import SECRET_NAME_WORDS, SECRET_QUERY_NAME, URL_ONLY_WORDS, secret_name

NAMES = ["password", "user_pwd", "API-Key", "sessionid", "X-Auth", "otp", "csrf_token", "code", "sig"]
PLAIN = ["page", "q", "sort", "user", "lang", "limit"]


def test_param_names_that_say_secret_are_secret_and_plain_ones_are_not() -> None:
    assert all(secret_name(n) for n in NAMES if n not in URL_ONLY_WORDS)
    assert not any(secret_name(n) for n in PLAIN)
    # A workflow param called `code` is a postal or product code its replay needs: it is stored.
    assert not secret_name("code") and re.search(SECRET_QUERY_NAME, "code")


def test_the_telemetry_reads_the_generated_list_not_its_own() -> None:
    protocol = (paths.extension_dir() / jsgen.TARGET).read_text()
    assert f"export const SECRET_QUERY_NAME = {json.dumps(SECRET_QUERY_NAME)};" in protocol
    telemetry = (paths.extension_dir() / "worker" / "lib" / "telemetry.js").read_text()
    assert "SECRET_QUERY_NAME" in telemetry
    assert not any(re.search(rf"/[^/\n]*\b{w}\|", telemetry) for w in SECRET_NAME_WORDS)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_reads_the_pattern_as_python_does() -> None:
    names = NAMES + PLAIN
    script = (
        f"import {{ SECRET_QUERY_NAME }} from {json.dumps(str(paths.extension_dir() / jsgen.TARGET))};"
        f"const re = new RegExp(SECRET_QUERY_NAME, 'i');"
        f"console.log(JSON.stringify({json.dumps(names)}.map((n) => re.test(n))));"
    )
    out = subprocess.run(
        [shutil.which("node") or "node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(out.stdout) == [re.search(SECRET_QUERY_NAME, n, re.I) is not None for n in names]
