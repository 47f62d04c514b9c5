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
    public static let coreCount: Int = allowedCPUs()?.count ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The CPUs this process may run on now (its affinity mask, from `/proc/self/status`); nil
    /// when that cannot be read.
    public static func allowedCPUs() -> [Int]? {
        (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)).flatMap { allowedCPUs(status: $0) }
    }

    /// The CPUs of the `Cpus_allowed_list:` line of a `/proc/<pid>/status` text, ascending as
    /// the kernel writes them (`0-3,8` is 0, 1, 2, 3 and 8), never empty; nil when the line is
    /// missing or not in that form.
    static func allowedCPUs(status: String) -> [Int]? {
        let key = "Cpus_allowed_list:"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
        let list = line.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
        guard !list.isEmpty else { return nil }
        var cpus: [Int] = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count <= 2, let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                  low >= 0, high >= low else { return nil }
            cpus += low...high
        }
        return cpus
    }
}
