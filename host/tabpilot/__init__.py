"""TabPilot: an AI agent reads and drives the user's own browser through MCP, locally, with no port."""

__version__ = "0.1.0"
