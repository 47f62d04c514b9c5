import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine this process runs on.
public enum System {
    /// Cores this process may run on: the CPUs of its affinity mask (`taskset`, `docker run
    /// --cpuset-cpus`, a Kubernetes static CPU policy), or every online core when the mask cannot
    /// be read. Read once, when first asked. The server starts a thread per core it may use:
    /// threads beyond them only take turns on the same cores, and each turn costs a switch.
    ///
    /// A CPU *quota* (`docker run --cpus`, a Kubernetes CPU limit) leaves the mask whole and is
    /// not seen here: set `server.threads` in the config to match it.
    public static let coreCount: Int = {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        guard let status = readText("/proc/self/status"),
              let allowed = allowedCPUCount(status: status) else { return online }
        return max(1, allowed)
    }()

    /// The number of CPUs in the `Cpus_allowed_list:` line of a `/proc/<pid>/status` text
    /// (`0-3,8,10-11` holds 7); nil when the line is missing or not in that form.
    static func allowedCPUCount(status: String) -> Int? {
        let key = "Cpus_allowed_list:"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
        let list = line.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        guard !list.isEmpty else { return nil }
        var count = 0
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count <= 2, let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                  low >= 0, high >= low else { return nil }
            count += high - low + 1
        }
        return count
    }

    /// The whole of a small text file (such as one under `/proc`, whose size `stat` reports as 0).
    private static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
