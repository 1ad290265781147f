/** The BQL editor: CodeMirror 6 with the BQL language, completion, lint, and Mod-Enter to run. */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { lintKeymap } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { BqlError, SchemaField, Validated } from '../api';
import { bqlCompletion, bqlLanguage, bqlLinter } from '../bql/language';

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
          if (u.docChanged) latest.current.onChange(u.state.doc.toString());
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current! });
    return () => view.current?.destroy();
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== props.value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div class="editor" ref={host} />;
}
