import Foundation
import TestSupport

/// An answer that is not what the test needed; says what came instead (status and body).
struct UnexpectedAnswer: Error, CustomStringConvertible {
    let description: String
}

extension HTTPTestClient.Answer {
    /// Throws unless the status is `status`; returns the answer for chaining.
    @discardableResult
    func expect(_ status: Int) throws -> Self {
        guard self.status == status else { throw UnexpectedAnswer(description: "expected status \(status), got \(summary)") }
        return self
    }

    /// The body of a successful (2xx) answer as a JSON object; throws with the status and body
    /// when the answer failed or its body is not a JSON object.
    var json: [String: Any] {
        get throws {
            guard (200..<300).contains(status) else { throw UnexpectedAnswer(description: "expected a 2xx answer, got \(summary)") }
            return try object()
        }
    }

    /// The body of a problem answer (4xx/5xx, `application/problem+json`) as a JSON object;
    /// throws when the answer is anything else.
    var problem: [String: Any] {
        get throws {
            guard status >= 400, header("Content-Type") == "application/problem+json" else {
                throw UnexpectedAnswer(description: "expected a problem answer, got \(summary)")
            }
            let body = try object()
            guard try body.value("status", as: Int.self) == status else {
                throw UnexpectedAnswer(description: "the problem's status is not the answer's: \(summary)")
            }
            return body
        }
    }

    /// The slug of a problem answer (`type` without `/problems/`); nil when this is not a
    /// problem answer (see ``problem``).
    var slug: String? {
        guard let type = (try? problem)?["type"] as? String, type.hasPrefix("/problems/") else { return nil }
        return String(type.dropFirst("/problems/".count))
    }

    private func object() throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw UnexpectedAnswer(description: "the body is not a JSON object: \(summary)")
        }
        return object
    }

    private var summary: String { "\(status) \(text.prefix(600))" }
}

extension Dictionary where Key == String, Value == Any {
    /// The member `key` as a `T`; throws (naming the key and the object) when it is missing or
    /// of another type.
    func value<T>(_ key: String, as type: T.Type = T.self) throws -> T {
        guard let member = self[key] as? T else {
            throw UnexpectedAnswer(description: "no \(T.self) at \"\(key)\" in \(String(describing: self).prefix(400))")
        }
        return member
    }
}

/// `value` as a `T`; throws (describing it) when it is another type.
func cast<T>(_ value: Any?, as type: T.Type = T.self) throws -> T {
    guard let typed = value as? T else { throw UnexpectedAnswer(description: "expected \(T.self), got \(String(describing: value).prefix(400))") }
    return typed
}
