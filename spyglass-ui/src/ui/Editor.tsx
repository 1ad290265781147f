/** The BQL editor: CodeMirror 6 with the BQL language, completion, lint, and Mod-Enter to run. */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { lintKeymap } from '@codemirror/lint';
import { Annotation, EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { BqlError, SchemaField, Validated } from '../api';
import { bqlCompletion, bqlLanguage, bqlLinter } from '../bql/language';

/** Marks a transaction that puts a text given from outside into the editor. */
const external = Annotation.define<boolean>();

export interface EditorProps {
  value: string;
  onChange(text: string): void;
  onRun(): void;
  fields: () => readonly SchemaField[];
  onValidated(v: Validated | null, errors: BqlError[]): void;
}

export function Editor(props: EditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  // the texts the editor reported lately: a render that still carries one of them is behind the
  // typing and must not put it back over what was typed since
  const reported = useRef<string[]>([props.value]);

  useEffect(() => {
    const state = EditorState.create({
      doc: props.value,
      extensions: [
        history(),
        closeBrackets(),
        bracketMatching(),
        EditorView.lineWrapping,
        placeholder('SELECT device, COUNT(*) AS n FROM STREAM(30s, TIME) GROUP BY device'),
        keymap.of([
          { key: 'Mod-Enter', run: () => (latest.current.onRun(), true), preventDefault: true },
          ...closeBracketsKeymap,
          ...completionKeymap,
          ...lintKeymap,
          ...historyKeymap,
          ...defaultKeymap,
        ]),
        bqlLanguage(),
        autocompletion({ override: [bqlCompletion(() => latest.current.fields())], activateOnTyping: true }),
        bqlLinter((v, errors) => latest.current.onValidated(v, errors)),
        EditorView.contentAttributes.of({ 'aria-label': 'BQL query', 'aria-multiline': 'true' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.annotation(external))) {
            const text = u.state.doc.toString();
            reported.current.push(text);
            if (reported.current.length > 200) reported.current.splice(0, 100);
            latest.current.onChange(text);
          }
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && !reported.current.includes(props.value) && v.state.doc.toString() !== props.value) {
      // a change from outside the editor: the builder, Format, a link
      reported.current = [props.value];
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value }, annotations: external.of(true) });
    }
  }, [props.value]);

  return <div class="editor" ref={host} />;
}
