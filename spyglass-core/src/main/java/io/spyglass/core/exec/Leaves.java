package io.spyglass.core.exec;

import static io.spyglass.core.record.Record.NULL;

import io.spyglass.core.record.Record;
import io.spyglass.core.record.Type;
import io.spyglass.core.record.Values;

/** Constants and fields of the record. */
final class Leaves {
  private Leaves() {}

  static Eval constant(Object value) {
    Const c = new Const();
    // interned: map keys read from JSON are interned too, so a lookup such as m['k'] finds its
    // key by identity without comparing characters
    c.kind = c.load(value instanceof String ? ((String) value).intern() : value);
    return c;
  }

  static final class Const extends Eval {
    int kind;

    @Override
    public int eval(Record r) {
      return kind;
    }
  }

  static final class Field extends Eval {
    final String name;

    Field(String name) {
      this.name = name;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      return i < 0 ? NULL : load(r, i);
    }
  }

  /** A field with a type hint: values of another kind read as NULL, numbers convert. */
  static final class HintedField extends Eval {
    final String name;
    final byte kind;

    HintedField(String name, Type type) {
      this.name = name;
      this.kind = (byte) type.kind().ordinal();
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k == kind) {
        return load(r, i);
      }
      if (Values.isNumeric(k) && Values.isNumeric(kind)) {
        return Kinds.convertNumber(this, load(r, i), kind);
      }
      return NULL;
    }
  }
}
