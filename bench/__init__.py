"""`python -m bench`: TabPilot's timing targets, measured on this machine and printed as numbers."""
