"""The sites the person allows the pilot on, as the extension reports them (`sites`: host patterns,
or None for every site), applied to what the host keeps: stored results, strategies, workflows. The
patterns read as the extension's own matcher reads them (worker/lib/sites.js): `jira.acme.com`,
`*.acme.com` (the domain and its subdomains), `intranet:8080` (that port only)."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..wire.errors import ErrorCode, TabPilotError

Sites = list[str] | None


def _covers(pattern: str, host: str, port: str | None) -> bool:
    name, colon, want_port = pattern.rpartition(":") if ":" in pattern else (pattern, "", "")
    if colon and port is not None and want_port != port:
        return False
    if name.startswith("*."):
        return host == name[2:] or host.endswith(name[1:])
    return host == name


def allows_url(sites: Sites, url: str) -> bool:
    """Whether the scope covers `url` (an http(s) URL); an empty URL holds no site."""
    if sites is None or not url:
        return True
    try:
        parts = urlsplit(url)
        port = str(parts.port or (443 if parts.scheme == "https" else 80))
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    return any(_covers(p, parts.hostname.lower(), port) for p in sites)


def allows_domain(sites: Sites, domain: str) -> bool:
    """Whether the scope covers a host name recorded without its port (a workflow's domains)."""
    if sites is None:
        return True
    host = domain.lower()
    return any(_covers(p, host, None) or _covers(p, f"www.{host}", None) for p in sites)


def site_of(url: str) -> str:
    """A URL's site as the popup names it (host with a non-default port)."""
    try:
        return urlsplit(url).netloc.rpartition("@")[2] or url
    except ValueError:
        return url


def refused(site: str) -> TabPilotError:
    """The refusal for stored data of a site outside the scope."""
    return TabPilotError(
        ErrorCode.SITE_NOT_ALLOWED,
        f"{site} is not among the sites you allow the AI Web Pilot on, so what was kept from it is "
        f'not served. To allow it, open the TabPilot popup and click "Allow" next to {site} (or choose '
        '"All sites"), then try again',
        data={"site": site},
    )
