"""The engine that runs the pipeline over a corpus.

``orchestrator``     the run as a script: diff -> prepare -> execute -> finish
``changes``          which files are new, changed, unchanged or deleted (the diff)
``prepare``          read one changed file and plan its summary tree
``plans``            the changed files read, planned and settled, as the stream an executor runs
``executor``         the seam: the Executor and Driver protocols, ``LocalExecutor`` (asyncio)
``executor_choice``  which executor a run uses (local, worker processes, Ray)
``driver``           the run's Driver: each finished node recorded, each finished file committed
``committer``        the node store, trees, manifest entries, soft deletes, flush and index page
``ledger``           the run's tallies, status and exit code
``index_feed``       the trees a run wrote, handed to the search index in memory
``nodes``            one node as work: its backend request and the key of its output
``records``          node, file and run records
``progress``         progress bars and the event log
``wrapup``           the end of a run: index sync, metrics, old records collected
``preview``          what a run would do (``batchsum plan``)
"""

# The logger of a run's warnings and problems (``Ledger``), each logged once as it is met: under ``batchsum``,
# so a library user's handler there gets them. The CLI prints them in its closing summary, so its own stderr
# handler leaves this logger out.
RUN_LOGGER = "batchsum.run"
