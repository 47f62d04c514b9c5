/// The command line of `sectional`, parsed without outside packages.
struct CommandLineOptions: Equatable {
    enum Command: Equatable { case serve, check, backup, help, version }

    var command: Command = .serve
    var configPath: String?
    var host: String?
    var port: Int?
    var dataPath: String?
    var memory = false
    var databaseURL: String?
    var allowUnauthenticatedWrites = false
    /// `backup --to FILE`.
    var backupPath: String?

    static let usage = """
    Usage:
      sectional [serve] [--config PATH] [--host H] [--port P] [--data PATH | --memory | --database-url URL]
                        [--allow-unauthenticated-writes]
      sectional check [--config PATH]
      sectional backup --to FILE [--config PATH | --data PATH]
      sectional --version | --help

    Serves sectioned, paged list view-models over HTTP JSON.

    Commands:
      serve        serve the lists of the config (the default)
      check        validate the config, print each list's sections and rows; exit 1 on errors
      backup       copy the SQLite store (of the config, or at --data) to FILE, also while a
                   server serves and writes it; the copy holds every write acknowledged
                   before the backup began

    Options:
      --config PATH                   config file (default config/sectional.json; env SECTIONAL_CONFIG)
      --host H                        address to bind (default 127.0.0.1; env SECTIONAL_HOST)
      --port P                        port to bind, 0 picks a free one (default 8080; env SECTIONAL_PORT)
      --data PATH                     store records in SQLite at PATH (env SECTIONAL_DATA)
      --to FILE                       where backup writes the copy (replaced if it exists)
      --memory                        keep records in memory only
      --database-url URL              store records in PostgreSQL at URL, shared by several instances
                                      (env SECTIONAL_DATABASE_URL)
      --allow-unauthenticated-writes  listen on a non-loopback address without an API token
      --help                          show this text
      --version                       print the version

    Environment: SECTIONAL_API_TOKEN (record writes need "Authorization: Bearer <token>"),
    SECTIONAL_LOG_LEVEL (debug, info, warn, error). Flags win over the environment, which wins
    over the config file.
    """

    struct UsageError: Error, Equatable { let message: String }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            switch first {
            case "serve": options.command = .serve
            case "check": options.command = .check
            case "backup": options.command = .backup
            default: throw UsageError(message: "unknown command '\(first)'")
            }
            rest = rest.dropFirst()
        }
        while let argument = rest.popFirst() {
            let (flag, inlineValue) = split(argument)
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
                return next
            }
            switch flag {
            case "--help", "-h": options.command = .help
            case "--version": options.command = .version
            case "--config": options.configPath = try value()
            case "--host": options.host = try value()
            case "--port":
                let text = try value()
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw UsageError(message: "--port must be a number from 0 to 65535, not '\(text)'")
                }
                options.port = port
            case "--data": options.dataPath = try value()
            case "--to": options.backupPath = try value()
            case "--memory": options.memory = true
            case "--database-url": options.databaseURL = try value()
            case "--allow-unauthenticated-writes": options.allowUnauthenticatedWrites = true
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        if [options.memory, options.dataPath != nil, options.databaseURL != nil].filter({ $0 }).count > 1 {
            throw UsageError(message: "--data, --memory and --database-url exclude each other")
        }
        if options.command == .check && (options.host != nil || options.port != nil || options.memory || options.dataPath != nil
                                         || options.databaseURL != nil) {
            throw UsageError(message: "check takes only --config")
        }
        if options.command == .backup {
            guard options.backupPath != nil else { throw UsageError(message: "backup needs --to FILE") }
            if options.host != nil || options.port != nil || options.memory || options.allowUnauthenticatedWrites {
                throw UsageError(message: "backup takes only --to, and --config or --data")
            }
            if options.configPath != nil && options.dataPath != nil {
                throw UsageError(message: "backup takes --config or --data, not both")
            }
        } else if options.backupPath != nil {
            throw UsageError(message: "--to is for backup")
        }
        return options
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<eq]), String(argument[argument.index(after: eq)...]))
    }
}
