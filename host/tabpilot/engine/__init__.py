"""The scrape engine: schema language, workflow steps, runner, jobs and the workflow store.

It talks to the browser only through `browser.Browser`; it never imports the bridge or the host.
"""
