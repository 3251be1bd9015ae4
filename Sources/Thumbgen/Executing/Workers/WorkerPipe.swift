import Foundation

/// Reads frames from one end of a pipe, buffering what arrives between them.
final class WorkerFrameReader: @unchecked Sendable {
    /// What waiting for a frame gave.
    enum Outcome {
        case frame(WorkerFrame)
        /// Nothing arrived before the deadline.
        case timedOut
        /// The other end closed the pipe (the process is gone), or sent garbage.
        case closed
    }

    private let descriptor: Int32
    private var buffer = Data()
    /// Where `read` puts what arrives: allocated once, not per call (a unit brings a dozen
    /// small frames, and zeroing 64 KiB for each showed in profiles).
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)

    /// A reader of `descriptor`, which it does not close.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        chunk.deallocate()
    }

    /// The next frame, waiting at most until `deadline` (nil: as long as it takes).
    func next(until deadline: ContinuousClock.Instant? = nil) -> Outcome {
        while true {
            if let frame = takeFrame() { return frame }
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return .timedOut }
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ms = Int32(min(left.inMilliseconds.rounded(.up), 60_000))
                let ready = poll(&entry, 1, max(ms, 1))
                if ready == 0 { continue }
                if ready < 0 && errno == EINTR { continue }
            }
            let count = read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .closed }
            buffer.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    /// A whole frame from the buffer, if one is there; `.closed` for one that cannot be.
    private func takeFrame() -> Outcome? {
        guard buffer.count >= 4 else { return nil }
        let length = Int(buffer.littleEndianUInt32(at: 0))
        guard length >= 1, length <= WorkerFrame.maxLength else { return .closed }
        guard buffer.count >= 4 + length else { return nil }
        let start = buffer.startIndex
        guard let kind = WorkerFrame.Kind(rawValue: buffer[start + 4]) else { return .closed }
        let body = Data(buffer[(start + 5)..<(start + 4 + length)])
        buffer.removeSubrange(start..<(start + 4 + length))
        return .frame(WorkerFrame(kind: kind, body: body))
    }
}

/// Writes frames to one end of a pipe, whole, from any thread.
final class WorkerFrameWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()

    /// A writer to `descriptor`, which it does not close.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends `frame`; false when the other end is gone (the run ignores SIGPIPE, so a dead
    /// reader is an EPIPE here).
    @discardableResult
    func send(_ frame: WorkerFrame) -> Bool {
        let data = frame.encoded
        lock.lock()
        defer { lock.unlock() }
        return data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Sends `message` in a frame of `kind`, followed by `payload`.
    @discardableResult
    func send<Message: Encodable>(_ kind: WorkerFrame.Kind, _ message: Message, payload: Data = Data()) -> Bool {
        guard let frame = WorkerFrame.make(kind, message, payload: payload) else { return false }
        return send(frame)
    }

    /// Sends `message` as its fields (`WireMessage`), then `payload`.
    @discardableResult
    func send<Message: WireMessage>(_ kind: WorkerFrame.Kind, _ message: Message, payload: Data = Data()) -> Bool {
        send(WorkerFrame.make(kind, message, payload: payload))
    }
}
