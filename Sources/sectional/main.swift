import Dispatch
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

let version = "0.1.0"

func fail(_ message: String, code: Int32) -> Never {
    FileHandleStandardError.write("sectional: \(message)\n")
    exit(code)
}

let options: CommandLineOptions
do {
    options = try CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandleStandardError.write("sectional: \(error.message)\n\n\(CommandLineOptions.usage)\n")
    exit(2)
}

switch options.command {
case .help:
    print(CommandLineOptions.usage)
case .version:
    print("sectional \(version)")
case .serve:
    let environment = Environment()
    var configuration = ServerConfiguration()
    configuration.host = options.host ?? environment["SECTIONAL_HOST"] ?? configuration.host
    if let port = options.port ?? environment["SECTIONAL_PORT"].flatMap(Int.init) { configuration.port = port }

    var router = Router()
    router.get("/healthz") { _ in .json(#"{"status":"ok"}"#) }
    let frozen = router
    let server = Server(configuration: configuration) { frozen.respond(to: &$0) }
    do {
        try server.start()
    } catch {
        fail("\(error)", code: 1)
    }
    Log.info("listening", ["address": "http://\(configuration.host):\(server.port)", "version": version])
    waitForTerminationSignal()
    Log.info("stopping", [:])
    server.stop(gracePeriod: 10)
    Log.info("stopped", [:])
}
