"""Registers TabPilot's native host with Chromium-family browsers and its MCP server with MCP clients."""
