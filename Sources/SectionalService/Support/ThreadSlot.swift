import Glibc

/// One object per thread, made on the thread's first use of ``current`` and released when the
/// thread ends: a process-wide `pthread` key whose value is the object, retained once when
/// stored and released by the key's destructor. The raw pointer never leaves this type.
///
/// For what only its own thread touches (the memos ``ReaderSlot`` and ``RecentSearch``, a
/// thread's ``ThreadNumber``), so reading one takes no lock. Keep an instance in a `static let`: each holds a key, and a process has a
/// few hundred at most.
final class ThreadSlot<Slot: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Slot

    /// A key whose threads each get `make()` on first use.
    init(_ make: @escaping @Sendable () -> Slot) {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { stored in
            if let stored { Unmanaged<AnyObject>.fromOpaque(stored).release() }
        }
        precondition(created == 0, "no thread-specific storage key left")
        self.key = key
        self.make = make
    }

    /// The calling thread's object.
    var current: Slot {
        if let stored = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(stored).takeUnretainedValue() }
        let slot = make()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }
}
