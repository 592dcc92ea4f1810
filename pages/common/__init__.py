"""What the pages share: their names, the session's tokenizers, state kept in
the URL, widgets, presenter mode, and the way every request enters through
app.py. A package, not a module in pages/: Streamlit's older multipage mode
lists every pages/*.py file as a page, never a package's modules.
"""
