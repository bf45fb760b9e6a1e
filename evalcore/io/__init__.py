"""Files in and out beyond the readers: loading folders, atomic outputs, tables and report figures."""
