/// A parameter of a PostgreSQL statement. Text and numbers go in libpq's text format; `bytes`
/// go in binary format, which for `json`, `text` and `bytea` columns is the bytes themselves —
/// so record JSON is sent as written, without a copy made to end it with a NUL.
enum PostgresValue {
    case text(String)
    case int(Int64)
    case bool(Bool)
    case bytes([UInt8])
    case null
}
