"""The link to a running browser: the private local socket its native host listens on, and the client.

Below the bridge, the CLI, dedicated profiles and the installer, which all reach browsers through it.
"""
