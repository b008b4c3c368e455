"""Memory rows keep their vector (and texts up to a page) inline instead of in TOAST.

A row of a 384-dimension vector (1,544 bytes) and a short text passes PostgreSQL's default TOAST
threshold (~2 kB), and the toaster moves the largest field out of line: the vector, which does not
compress. Every read of a vector (the distance of each HNSW candidate, an exact scan over a narrow
scope, the archivist's neighbour query) then costs a TOAST index lookup and another page. Measured at
100k memories (bench/scale): memory.ask in a run's layers 126 -> 51 ms p50 in process; the heap grows
96 -> 262 MB and the TOAST table of 142 MB goes. ``toast_tuple_target`` 8160 (a page) leaves a row
whole unless it would not fit; the vector's storage MAIN keeps it inline before any text when one
must go. Existing rows take the layout when rewritten (VACUUM FULL, or any update).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0008_waiting_vector_index"),
    ]

    operations = [
        migrations.RunSQL(
            sql=[
                "ALTER TABLE memory_memory SET (toast_tuple_target = 8160)",
                "ALTER TABLE memory_memory ALTER COLUMN embedding SET STORAGE MAIN",
            ],
            reverse_sql=[
                "ALTER TABLE memory_memory RESET (toast_tuple_target)",
                "ALTER TABLE memory_memory ALTER COLUMN embedding SET STORAGE EXTENDED",
            ],
        ),
    ]
