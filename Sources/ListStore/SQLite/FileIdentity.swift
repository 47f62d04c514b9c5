#if canImport(Glibc)
import Glibc
#endif

/// A file's device and inode: the same file under any of its names, and not the same as a file
/// put at its name since (a deleted and re-created, or replaced, database).
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`; nil when there is none (or it cannot be read).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
