/**
 * The engine's own prompt for SQL fixes (rendered by \`renderSqlFixPrompt\`,
 * \`src/discovery/sql/sql-fix-prompt.ts\`). Part of the engine's code, not of a pack: it is compiled in,
 * so the engine reads no file for it. \`{{NAME}}\` placeholders are filled by the renderer, which
 * refuses any name outside its list.
 */
export const SQL_FIX_TEMPLATE = `A read-only SQL query failed. Fix it so it runs on this warehouse and still answers the same question.

SQL dialect: {{DIALECT}}

## How this dialect writes SQL

{{DIALECT_HINTS}}

## The query

{{ORIGINAL_SQL}}

## The error

{{ERROR_MESSAGE}}

## Columns of the tables the query touches

{{TABLE_COLUMNS}}

## Earlier attempts that also failed

{{PREVIOUS_ATTEMPTS}}

## Evidence from the finding being verified

{{VERIFICATION_CONTEXT}}

## Rules

- Use only the tables and columns listed above; never guess a column name. Names are shown as SQL quotes them: write them the same way.
- Keep it a single SELECT (WITH … SELECT is fine). No DDL, DML, SET, COPY or file readers.
- Keep the intent of the original query; change only what the error requires.
- Reply with the corrected SQL in one \`\`\`sql fenced block and nothing else.
`;
