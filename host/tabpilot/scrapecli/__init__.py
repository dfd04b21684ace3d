"""`tabpilot scrape`, `tabpilot replay`, `tabpilot workflows`: the scrape engine for people and cron."""
