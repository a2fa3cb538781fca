"""The engine that runs the pipeline over a corpus.

``orchestrator``  walk, diff against the manifest, drive the executor, commit, index, metrics
``changes``       which files are new, changed, unchanged or deleted
``prepare``       read one changed file and plan its summary tree
``executor``      the seam: how planned nodes become summaries (``LocalExecutor``: asyncio)
``nodes``         one node as work: its backend request and the key of its output
``records``       node, file and run records
``progress``      progress bars and the event log
``wrapup``        the end of a run: index sync, metrics, old records collected
``preview``       what a run would do (``batchsum plan``)
"""
