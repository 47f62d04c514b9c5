/// The command line of `sectional` (SPEC §8), parsed without outside packages.
struct CommandLineOptions: Equatable {
    enum Command: Equatable { case serve, help, version }

    var command: Command = .serve
    var host: String?
    var port: Int?

    static let usage = """
    Usage:
      sectional [serve] [--host H] [--port P]
      sectional --version | --help

    Serves sectioned, paged list view-models over HTTP JSON.

    Options:
      --host H     address to bind (default 127.0.0.1; env SECTIONAL_HOST)
      --port P     port to bind, 0 picks a free one (default 8080; env SECTIONAL_PORT)
      --help       show this text
      --version    print the version
    """

    struct UsageError: Error, Equatable { let message: String }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            guard first == "serve" else { throw UsageError(message: "unknown command '\(first)'") }
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
            case "--host": options.host = try value()
            case "--port":
                let text = try value()
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw UsageError(message: "--port must be a number from 0 to 65535, not '\(text)'")
                }
                options.port = port
            default: throw UsageError(message: "unknown option '\(argument)'")
            }
        }
        return options
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<eq]), String(argument[argument.index(after: eq)...]))
    }
}
