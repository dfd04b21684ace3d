"""The wire: message types, framing and error codes shared by every TabPilot process."""
