"""How the pages draw: HTML for tokens, plotly figures, PNG and SVG slides,
an animated GIF of merges, and views saved as pages that need no server
(with the browser parts they share with the app: the step control, a deck).

Plain functions from data to HTML, figures or images, tested without a
browser. Every piece of user text is escaped here (HTML in `tokens` and
the other views, Markdown in `markdown`, labels that plotly reads as HTML
in each figure), and colours come from one colour-blind-safe `palette`.
"""
