#if canImport(Glibc)
import Glibc
#endif

/// Paths as SQLite and the kernel read them.
enum SQLitePath {
    /// `path` with the symbolic links and `..` of its folder resolved (a link as the last
    /// component is kept: it is what a rename would replace), or nil when the folder does not
    /// exist.
    static func canonical(_ path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, let resolved = realpath(folder, nil) else { return nil }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base == "/" ? "" : base) + "/" + name
    }

    /// Refuses a path that names a folder (one there, or any ending in `/`): SQLite's answer was
    /// "unable to open database file", and a path ending in `/` not there yet made a database
    /// file with the folder's name.
    static func checkNotAFolder(_ path: String, role: String) throws(StoreError) {
        var info = stat()
        guard path.hasSuffix("/") || (stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR) else { return }
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        throw StoreError(.fileSystem, "\(path) is a folder: \(role) names a file (for example \(folder)/sectional.sqlite)")
    }

    /// Refuses a database file with more than one name (hard links): SQLite keeps a database's
    /// write-ahead log beside the name it is opened by, so a server or a backup opening the file
    /// by another name sees it without the writes the first name's log holds, and the lock file
    /// (kept by name too) lets a second server in — writes acknowledged by both were lost at the
    /// next checkpoint. SQLite itself only logs a warning. A file not there yet has one name.
    static func checkSingleName(_ path: String) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink > 1 else { return }
        throw StoreError(.fileSystem, "the SQLite database \(path) has \(info.st_nlink) names (hard links): SQLite keeps "
            + "its write-ahead log beside the name a file is opened by, so another name sees the file without the writes "
            + "in this one's log. Remove the other names (find / -xdev -samefile \(path))")
    }

    /// The database file SQLite opens at `path`: ``canonical(_:)``, then a symbolic link as the
    /// last component followed (SQLite follows it, and names the `-wal`, `-shm` and `-journal`
    /// files after the file it reaches, not after the link), as often as links lead on (at
    /// most 40, the kernel's limit). A link whose target does not exist leads to that target
    /// (SQLite creates it). `path` as given when its folder does not exist.
    static func databaseFile(_ path: String) -> String {
        guard var current = canonical(path) else { return path }
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0 else { return current }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let folder = current[..<(current.lastIndex(of: "/") ?? current.startIndex)]
            let next = target.hasPrefix("/") ? target : String(folder) + "/" + target
            guard let resolved = canonical(next) else { return next }
            current = resolved
        }
        return current
    }
}
