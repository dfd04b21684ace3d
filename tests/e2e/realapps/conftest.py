"""The real-apps corpus: each app started once per test session on 127.0.0.1 (from the apps' own
virtualenv that `./dev test` installs), only when a test asks for it, and stopped at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.realapps import corpus


@pytest.fixture(scope="session")
def roundup_url() -> Iterator[str]:
    with corpus.roundup() as url:
        yield url


@pytest.fixture(scope="session")
def flask_admin_url() -> Iterator[str]:
    with corpus.flask_admin() as url:
        yield url


@pytest.fixture(scope="session")
def dash_url() -> Iterator[str]:
    with corpus.dash() as url:
        yield url


@pytest.fixture(scope="session")
def aggrid_url() -> Iterator[str]:
    with corpus.aggrid() as url:
        yield url


@pytest.fixture(scope="session")
def sphinx_url() -> Iterator[str]:
    with corpus.sphinx() as url:
        yield url


@pytest.fixture(scope="session")
def feeds_url() -> Iterator[str]:
    with corpus.feeds() as url:
        yield url


@pytest.fixture(scope="session")
def grids_url() -> Iterator[str]:
    with corpus.grids() as url:
        yield url
