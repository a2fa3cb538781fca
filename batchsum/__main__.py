from batchsum.cli import main

main()
