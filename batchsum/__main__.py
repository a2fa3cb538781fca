from batchsum.cli import entry

entry()
