import Dispatch
import Locking
import XCTest
@testable import SectionalService

extension XCTestCase {
    /// Commits one group of writes through `store`'s writer and waits for it (up to a minute);
    /// a failed commit fails the test.
    func commit(_ store: ViewModelStore, _ writes: [ViewModelStore.Write]) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        store.commitLater(writes) { result in
            if case .failure(let error) = result { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the commit answered")
        if let error = failure.withLock({ $0 }) { XCTFail(error) }
    }
}
