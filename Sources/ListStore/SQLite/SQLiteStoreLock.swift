import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// One server's claim on an SQLite store: an exclusive `flock` on `<database>.lock` beside the
/// database, taken before the database is opened and held until the store closes, so a second
/// server started on the same file refuses to start instead of serving lists that never see the
/// first one's writes (SQLite has no change log another process could follow).
///
/// A file of its own, not the database: SQLite locks the database with POSIX record locks, which
/// a process loses on *any* close of the file, so a descriptor of ours on it could drop the
/// connections' locks; and `sectional backup` (which reads the database through SQLite alone)
/// goes on working while a server holds the store. The file holds the holder's process id, for
/// the message; it is never deleted (removing a lock file races with the next server taking it).
/// The kernel drops the lock when the process ends, `kill -9` included.
final class SQLiteStoreLock: Sendable {
    /// The lock file's path.
    let path: String
    /// The open descriptor holding the lock, or -1 once released.
    private let descriptor: Locked<Int32>

    /// Takes the lock of the database at `databasePath` (symbolic links resolved, so two names of
    /// one file share a lock), or throws `inUse` naming the file (and the holder's process id)
    /// when another open store holds it, in this process or another.
    init(databasePath: String) throws(StoreError) {
        // Cut at a NUL by the system, the lock file's path would name the database (emptied below).
        guard !databasePath.utf8.contains(0) else {
            throw StoreError(.fileSystem, "the SQLite store's path holds a NUL character: \(databasePath.debugDescription)")
        }
        path = Self.path(ofDatabase: databasePath)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StoreError(.fileSystem, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let cause = errno
            let holder = cause == EWOULDBLOCK ? Self.holder(fd) : nil
            close(fd)
            guard cause == EWOULDBLOCK else {
                throw StoreError(.fileSystem, "cannot lock \(path): \(String(cString: strerror(cause)))")
            }
            throw StoreError(.inUse, "the SQLite store \(databasePath) is in use by another server ("
                + (holder.map { "pid \($0), " } ?? "") + "holding \(path))")
        }
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = pwrite(fd, text, text.count, 0) }  // only for the message
        descriptor = Locked(fd)
    }

    /// The lock file of the database at `databasePath`: beside the file SQLite opens there
    /// (``SQLitePath/databaseFile(_:)``: symbolic links followed, one to a file not there yet
    /// included), so two names of one file share a lock, as an absolute path.
    static func path(ofDatabase databasePath: String) -> String {
        SQLitePath.databaseFile(databasePath) + ".lock"
    }

    deinit { release() }

    /// Gives the lock up (closing its descriptor); later calls do nothing.
    func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }
    }

    /// The process id the holder wrote in the lock file, if it reads as one.
    private static func holder(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
