"""How the pages draw: HTML for tokens, plotly figures, PNG and SVG slides.

Plain functions from data to HTML, figures or images, tested without a
browser. Every piece of user text is escaped here (HTML in `tokens` and
the other views, Markdown in `markdown`, labels that plotly reads as HTML
in each figure), and colours come from one colour-blind-safe `palette`.
"""
