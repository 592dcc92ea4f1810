"""A web page's heavy work, bounded: a visitor's job runs in a process of its
own within a budget of time and memory (`budgeted_jobs`), takes its turn at
the machine's cores (`machine_turns`), and is shared by visitors who ask for
the same at once (`shared_jobs`). Its uses: training, counting and encoding
for a visitor (`budgeted_training`, `budgeted_counting`, `budgeted_encoding`).
"""
