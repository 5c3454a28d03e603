import { HtmlPage } from './html-page';
import { visibleText, visibleTextEndsWithColon } from './page-text';

describe('visibleTextEndsWithColon', () => {
  const page = HtmlPage.parse(
    `<html><body><main>
      <ul>
        <li><b>SKU:</b> 123</li>
        <li><span>Colour<i>:</i>&nbsp;&#12288;</span><span>red</span></li>
        <li><span>Größe：</span><span>M</span></li>
        <li><span>Price <script>var x = "a:"</script></span><span>9</span></li>
        <li><span>Note<button>Tip:</button></span></li>
        <li><span>Weight:<!-- a comment: --></span><em>2 kg</em></li>
        <li><span><div>Block:</div><p>   </p></span></li>
        <li><span></span><span>   </span><span>:</span></li>
        <li><span>http://shop.test:8080</span></li>
      </ul>
    </main></body></html>`,
    'https://shop.test/p/1',
  );

  it('answers for every element what the visible text would', () => {
    const answers = page.elements.map((element) => [element.name, visibleTextEndsWithColon(element)]);
    expect(answers).toEqual(page.elements.map((element) => [element.name, /[:：]\s*$/.test(visibleText(element))]));
    // The page holds both answers in plenty, so the comparison above says something.
    expect(answers.filter(([, colon]) => colon).length).toBeGreaterThan(5);
    expect(answers.filter(([, colon]) => !colon).length).toBeGreaterThan(5);
  });
});
