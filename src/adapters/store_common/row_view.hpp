#pragma once
// One result row as both engines hand it to the shared row readers (row_readers.hpp): an SQLite
// statement on its current row, a PostgreSQL result's row. Columns are numbered from 0.

#include <cstdint>
#include <optional>
#include <string>

namespace agentgate {

class RowView {
 public:
  virtual std::string Text(int column) const = 0;
  virtual std::string Bytes(int column) const = 0;  // a blob / bytea column, raw
  virtual std::int64_t Int(int column) const = 0;
  virtual double Double(int column) const = 0;
  virtual bool Bool(int column) const = 0;
  virtual bool IsNull(int column) const = 0;

  std::optional<double> OptionalDouble(int column) const {
    return IsNull(column) ? std::nullopt : std::optional<double>(Double(column));
  }
  std::optional<std::int64_t> OptionalInt(int column) const {
    return IsNull(column) ? std::nullopt : std::optional<std::int64_t>(Int(column));
  }

 protected:
  ~RowView() = default;
};

}  // namespace agentgate
