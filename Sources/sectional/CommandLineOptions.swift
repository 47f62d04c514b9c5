/// The command line of `sectional`, parsed without outside packages.
struct CommandLineOptions: Equatable {
    enum Command: Equatable { case serve, check, token, backup, help, version }

    var command: Command = .serve
    var configPath: String?
    var host: String?
    var port: Int?
    var dataPath: String?
    var memory = false
    var databaseURL: String?
    var allowUnauthenticatedWrites = false
    /// `token`: the subject (`--sub`) and lifetime in seconds (`--ttl`; nil: not given, 3600) of
    /// the token to mint.
    var subject: String?
    var ttlSeconds: Int?
    /// `backup --to FILE`.
    var backupPath: String?

    static let usage = """
    Usage:
      sectional [serve] [--config PATH] [--host H] [--port P] [--data PATH | --memory | --database-url URL]
                        [--allow-unauthenticated-writes]
      sectional check [--config PATH]
      sectional token --sub SUB [--ttl SECONDS] [--config PATH]
      sectional backup --to FILE [--config PATH | --data PATH]
      sectional --version | --help | -h

    Serves sectioned, paged list view-models over HTTP JSON.

    Commands:
      serve        serve the lists of the config (the default)
      check        validate the config, print each list's sections and rows; exit 1 on errors
      token        print an HS256 user token for SUB, signed with the secret in the variable
                   auth.users.hs256SecretEnv names (for development and curl)
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
      --sub SUB                       token: the user (the token's sub claim)
      --ttl SECONDS                   token: seconds until it expires (default 3600)
      --help, -h                      show this text
      --version                       print the version

    Environment: SECTIONAL_API_TOKEN, or the variable auth.tokenEnv names instead (the service
    token: record writes need "Authorization: Bearer <token>"), the variable
    auth.users.hs256SecretEnv names (the HS256 secret of user tokens, e.g. SECTIONAL_JWT_SECRET),
    SECTIONAL_LOG_LEVEL (debug, info, warn, error). Flags win over the environment, which wins
    over the config file.
    """

    struct UsageError: Error, Equatable { let message: String }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        // `--help` or `--version` anywhere answers that, whatever else the line holds (a flag
        // `serve` does not know, a value missing or wrong, a flag of another command); as the
        // value of a flag before it too (`--data --help`: no file of that name is made).
        for argument in arguments {
            if argument == "--help" || argument == "-h" { options.command = .help; return options }
            if argument == "--version" { options.command = .version; return options }
        }
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            switch first {
            case "serve": options.command = .serve
            case "check": options.command = .check
            case "token": options.command = .token
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
            /// A switch is on by being named: `--memory=false` would otherwise turn it on.
            func noValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError(message: "\(flag) takes no value") }
            }
            switch flag {
            case "--help", "--version": try noValue()  // bare, they were answered above: here with a value
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
            case "--memory": try noValue(); options.memory = true
            case "--database-url": options.databaseURL = try value()
            case "--allow-unauthenticated-writes": try noValue(); options.allowUnauthenticatedWrites = true
            case "--sub": options.subject = try value()
            case "--ttl":
                let text = try value()
                guard let seconds = Int(text), (1...31_622_400).contains(seconds) else {
                    throw UsageError(message: "--ttl must be a number of seconds from 1 to 31622400 (366 days), not '\(text)'")
                }
                options.ttlSeconds = seconds
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        if [options.memory, options.dataPath != nil, options.databaseURL != nil].filter({ $0 }).count > 1 {
            throw UsageError(message: "--data, --memory and --database-url exclude each other")
        }
        let serveFlags = options.host != nil || options.port != nil || options.memory || options.dataPath != nil
            || options.databaseURL != nil || options.allowUnauthenticatedWrites
        let tokenFlags = options.subject != nil || options.ttlSeconds != nil
        if options.command == .check && (serveFlags || tokenFlags) {
            throw UsageError(message: "check takes only --config")
        }
        if options.command == .token {
            if serveFlags { throw UsageError(message: "token takes only --sub, --ttl and --config") }
            guard let subject = options.subject, !subject.isEmpty else { throw UsageError(message: "token needs --sub SUB") }
        }
        if tokenFlags && options.command != .token {
            throw UsageError(message: "--sub and --ttl go with the token command")
        }
        if options.command == .backup {
            guard options.backupPath != nil else { throw UsageError(message: "backup needs --to FILE") }
            if options.host != nil || options.port != nil || options.memory || options.allowUnauthenticatedWrites
                || options.databaseURL != nil {
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
