import Dispatch
import Foundation
import HTTPServer

/// Blocks until SIGINT or SIGTERM arrives.
func waitForTerminationSignal() {
    let done = DispatchSemaphore(value: 0)
    var sources: [DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { done.signal() }
        source.resume()
        sources.append(source)
    }
    done.wait()
    sources.forEach { $0.cancel() }
}

/// The process environment.
struct Environment {
    let values = ProcessInfo.processInfo.environment
    subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }
}

enum FileHandleStandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// One JSON object per line on stderr.
enum Log {
    static func info(_ message: String, _ fields: [String: String]) {
        var line = "{\"time\":\(JSONText.quote(Date().ISO8601Format())),\"level\":\"info\",\"msg\":\(JSONText.quote(message))"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += ",\(JSONText.quote(key)):\(JSONText.quote(value))"
        }
        FileHandleStandardError.write(line + "}\n")
    }
}
