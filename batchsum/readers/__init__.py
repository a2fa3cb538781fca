"""File formats read into text: each module reads one kind of file, or one app's marks, into the plain text
or the ``Speaker: text`` turns the rest of the pipeline summarizes. :mod:`batchsum.walk` picks the reader
by a file's extension and shape; nothing here imports the stages after it."""
