#ifndef SECTIONAL_CSQLITE_SHIM_H
#define SECTIONAL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// A NULL pointer would bind SQL NULL; an empty Swift string or array may lend one, and means
// an empty value.
static inline int sectional_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text ? text : "", bytes, SQLITE_TRANSIENT);
}

static inline int sectional_sqlite_bind_blob(sqlite3_stmt *statement, int index, const void *data, int bytes) {
    if (bytes == 0) return sqlite3_bind_zeroblob(statement, index, 0);
    return sqlite3_bind_blob(statement, index, data, bytes, SQLITE_TRANSIENT);
}
#endif
