/// The records the remote cache holds, in the local cache's checksummed format (`CacheRecord`)
/// with two more fields: `kind`, and the name the record answers for (the output key, or the
/// URL). A record read back is believed only if it parses whole, is of the kind asked for, and
/// answers for the very key or URL asked for: a record copied under another name, torn or
/// flipped is a miss. The blob it names is then checked against its digest before use.
enum RemoteEntries {
    /// An output record, for the remote's `v1/outputs/ab/KEY`.
    static func encode(_ record: OutputRecord, key: String) -> [UInt8] {
        var entry = OutputIndex.entry(record)
        entry["kind"] = "output"
        entry["key"] = key
        return entry.encoded
    }

    /// The output record in `bytes`, if it is one, sound, for `key`.
    static func output(_ bytes: [UInt8], key: String) -> OutputRecord? {
        guard let entry = CacheRecord(decoding: bytes), entry["kind"] == "output", entry["key"] == key,
              let record = OutputIndex.decode(entry), record.bytes > 0, record.width > 0, record.height > 0
        else { return nil }
        return record
    }

    /// A URL record, for the remote's `v1/urls/ab/SHA256-OF-URL`.
    static func encode(_ record: URLRecord) -> [UInt8] {
        var entry = URLIndex.entry(record)
        entry["kind"] = "url"
        return entry.encoded
    }

    /// The URL record in `bytes`, if it is one, sound, for `url`.
    static func url(_ bytes: [UInt8], url: String) -> URLRecord? {
        guard let entry = CacheRecord(decoding: bytes), entry["kind"] == "url",
              let record = URLIndex.decode(entry), record.url == url,
              record.storedAt.isFinite, record.freshFor.isFinite else { return nil }
        return record
    }
}
