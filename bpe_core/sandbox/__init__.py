"""Work that must not take the machine: fresh processes started by one fork
server (`worker_processes`), in which a regex that someone typed is compiled
and tried under a memory cap and a deadline (`untrusted_regex`) before text is
split with it under a deadline of its own (`untrusted_split`), and in which a
visitor's tokenizer.json is loaded, tried (`untrusted_tokenizer`) and held, each
call to it within its own processor time (`hosts`).
"""
