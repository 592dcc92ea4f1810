"""Text to train on and to measure with: the bundled samples (`samples`),
the Universal Declaration of Human Rights in 527 languages (`udhr`), corpora
in files read block by block (`corpus_files`), and counting on a Dask
cluster (`dask_counting`), whose machines get this package from the client
(`dask_shipping`).
"""
