import { describe, expect, it } from 'vitest';
import { escapeHtml, html, rawHtml } from '../../../src/report/escape.js';

describe('when text is interpolated into an html template', () => {
  it('escapes markup characters, including quotes for attributes', () => {
    const name = `<script>alert("x")</script> & 'y'`;
    expect(html`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>',
    );
  });

  it('escapes every element of an array and keeps nested templates as markup', () => {
    const items = ['<b>', 'a&b'];
    expect(html`<ul>${items.map((item) => html`<li>${item}</li>`)}</ul>`.markup).toBe('<ul><li>&lt;b&gt;</li><li>a&amp;b</li></ul>');
  });

  it('renders nothing for false, null and undefined but renders zero', () => {
    expect(html`[${false}${null}${undefined}${0}]`.markup).toBe('[0]');
  });

  it('passes trusted markup through untouched', () => {
    expect(html`${rawHtml('<hr>')}`.markup).toBe('<hr>');
    expect(escapeHtml('plain text')).toBe('plain text');
  });
});
