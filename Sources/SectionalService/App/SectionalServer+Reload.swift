import ListModel

extension SectionalServer {
    /// Re-reads the lists of the config file at `path` (on `SIGHUP`): lists whose definition in
    /// force changes are rebuilt off the request path, each at one new version. Only `lists` is
    /// taken from the file; the rest of it needs a restart. A file that is unreadable or invalid
    /// is logged with every problem and the lists in force are kept. `completion` says whether
    /// the file's lists are now served.
    /// `overrides` are the command line's (so a file that needs them, such as a PostgreSQL URL
    /// given by flag, reads as it did at start).
    public func reloadLists(configPath path: String, overrides: ConfigurationOverrides = ConfigurationOverrides(),
                            completion: @escaping @Sendable (Bool) -> Void = { _ in }) {
        // `readiness` turning ready publishes `lists` (see the type's documentation).
        guard readiness.phase == .ready, let lists else {
            // Done once the server is ready (a SIGHUP while it loads is not lost); `completion`
            // says false now.
            let waits = waitingReload.withLock { waiting in
                guard readiness.phase != .ready else { return false }
                waiting = (path, overrides)
                return true
            }
            guard waits else { return reloadLists(configPath: path, overrides: overrides, completion: completion) }
            log.info("config reload waits until the server is ready", ["path": .text(path)])
            return completion(false)
        }
        let definitions: [ListDefinition]
        do {
            definitions = try Configuration.load(path: path, overrides: overrides).lists
        } catch {
            log.error("config reload failed; the lists in force are kept", [
                "path": .text(path), "errors": .text(error.issues.map(\.description).joined(separator: "; ")),
            ])
            return completion(false)
        }
        lists.reloadConfigLater(definitions) { [log] outcome in
            switch outcome {
            case .success(let changed):
                log.info("config reloaded", ["path": .text(path), "changed": .text(changed.joined(separator: ","))])
                completion(true)
            case .failure(let error):
                log.error("config reload failed; the lists in force are kept", ["path": .text(path), "errors": .text("\(error)")])
                completion(false)
            }
        }
    }
}
