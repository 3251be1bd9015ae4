// The only door from Swift into SQLite (Debian's libsqlite3), used by one Swift type:
// Sources/Thumbgen/Caching/Store/IndexDatabase.swift (and IndexDatabase+Opening.swift).
//
// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import; these
// shims bind a copy of the caller's bytes, which SQLite then owns.
#ifndef THUMBGEN_CSQLITE_SHIM_H
#define THUMBGEN_CSQLITE_SHIM_H

#include <sqlite3.h>

static inline int tg_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}

static inline int tg_sqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

#endif
