import type { ValueKind } from './values';

/**
 * What shops call a field, by the plain-English name Trawl gives it: labels, class names and
 * markup names in the languages of the shops Extract meets, so that `Farbe`, `Couleur`, `Barva`
 * and `顏色` all answer `color`, and a domain's names read the same whatever its language.
 * No model and no download: a fixed glossary, which a label outside it does without (it keeps its
 * own words, `fassungsvermogen_in_ml`).
 *
 * Words are written as they appear on pages; they are compared after `fieldNameOfLabel`'s
 * normalisation (lower case, diacritics dropped, other characters an underscore), so `Größe`,
 * `größe` and `GROESSE:` are one word only where that normalisation makes them one.
 */
export interface GlossaryEntry {
  /** The plain-English snake_case name. */
  name: string;
  /** Kinds the field's values must have for the name to apply (any when absent). */
  kinds?: readonly ValueKind[];
  /** The values must be codes: letters or digits with a digit, no spaces (`sku`, `mpn`). */
  codes?: boolean;
  /** What pages call it, in any language. */
  words: readonly string[];
}

const DESCRIPTIVE: readonly ValueKind[] = ['text', 'number'];

export const FIELD_GLOSSARY: readonly GlossaryEntry[] = [
  {
    name: 'sku',
    kinds: ['text', 'number'],
    codes: true,
    words: [
      'sku', 'asin', 'product code', 'item code', 'item number', 'item no', 'article number', 'art nr', 'artikelnummer', 'artikel nr',
      'product number', 'product id', 'style number', 'reference', 'ref', 'referencia', 'référence produit', 'codice articolo', 'code',
      'kod', 'kód', 'kod produktu', 'kód produktu', 'cod produs', 'código', 'codice', 'код', 'код товара', 'артикул', 'šifra',
      'produktové číslo', 'tootekood', 'tuotenumero', 'varenummer', 'artikelnr', '商品編號', '商品编号', '商品番号', '品番', '상품번호', '상품코드',
      'מק"ט', 'رمز المنتج',
    ],
  },
  {
    name: 'mpn',
    kinds: ['text', 'number'],
    codes: true,
    words: ['mpn', 'part number', 'manufacturer part number', 'manufacturer part number mpn', 'model number', 'model no', 'herstellernummer', 'référence fabricant'],
  },
  { name: 'gtin', kinds: ['gtin'], words: ['gtin', 'ean', 'ean code', 'ean13', 'ean 13', 'upc', 'barcode', 'código de barras', 'čárový kód', 'штрихкод'] },
  {
    name: 'brand',
    kinds: ['text'],
    words: [
      'brand', 'brand name', 'manufacturer', 'maker', 'marke', 'hersteller', 'marque', 'fabricant', 'marca', 'fabricante', 'merk', 'fabrikant',
      'marka', 'producent', 'značka', 'výrobce', 'výrobca', 'znamka', 'blagovna znamka', 'proizvođač', 'producător', 'márka', 'gyártó',
      'märke', 'tillverkare', 'mærke', 'merke', 'valmistaja', 'tuotemerkki', 'kaubamärk', 'tootja', 'zīmols', 'ražotājs', 'prekės ženklas',
      'gamintojas', 'бренд', 'марка', 'производитель', 'виробник', 'производител', 'μάρκα', 'κατασκευαστής', 'üretici', '品牌', '廠牌',
      '厂牌', '製造商', '制造商', 'ブランド', 'メーカー', '브랜드', '제조사', 'מותג', 'יצרן', 'العلامة التجارية', 'الماركة',
    ],
  },
  {
    name: 'price',
    kinds: ['price'],
    words: [
      'price', 'cost', 'amount', 'our price', 'sale price', 'preis', 'prix', 'precio', 'prezzo', 'preço', 'prijs', 'pris', 'cena', 'cijena',
      'preț', 'ár', 'hinta', 'hind', 'kaina', 'цена', 'ціна', 'τιμή', 'fiyat', '價格', '价格', '售價', '售价', '特價', '特价', '価格',
      '販売価格', '가격', '판매가', 'מחיר', 'السعر',
    ],
  },
  {
    name: 'regular_price',
    kinds: ['price'],
    words: [
      'regular price', 'original price', 'list price', 'rrp', 'msrp', 'was', 'old price', 'uvp', 'alter preis', 'streichpreis',
      'prix barré', 'ancien prix', 'prix initial', 'precio anterior', 'precio original', 'precio normal', 'normal', 'prezzo di listino',
      'prezzo originale', 'prezzo pieno', 'preço original', 'preço normal', 'oude prijs', 'cena regularna', 'stara cena', 'původní cena',
      'pôvodná cena', 'redna cena', 'preț vechi', 'eredeti ár', 'ordinarie pris', 'ordinarpris', 'normaalihinta', 'tavahind',
      'старая цена', 'обычная цена', 'стара ціна', 'стара цена', 'αρχική τιμή', 'eski fiyat', '原價', '原价', '定價', '定价', '市價',
      '市价', '定価', '通常価格', '정가', '소비자가', 'מחיר מקורי', 'السعر الأصلي',
    ],
  },
  {
    name: 'price_excluding_tax',
    kinds: ['price'],
    words: [
      'price excluding tax', 'excl vat', 'excluding vat', 'ex vat', 'ohne mwst', 'netto', 'netto preis', 'hors taxe', 'prix ht', 'sin iva',
      'senza iva', 'sem iva', 'excl btw', 'bez dph', 'bez vat', 'brez ddv', 'bez pdv', 'fără tva', 'áfa nélkül', 'exkl moms', 'ilman alv',
      'ilma km', 'bez pvn', 'be pvm', 'без ндс', 'без пдв', 'χωρίς φπα', 'kdv hariç', '未稅', '未税', '税抜', '税抜価格',
    ],
  },
  {
    name: 'monthly_payment',
    kinds: ['price'],
    words: ['monthly payment', 'per month', 'monatliche rate', 'mensualité', 'cuota mensual', 'rata mensile', 'mensalidade', 'rata miesięczna', 'kuumakse', 'mēneša maksājums', 'ежемесячный платеж', '月付'],
  },
  {
    name: 'discount',
    words: [
      'discount', 'rabatt', 'remise', 'réduction', 'descuento', 'sconto', 'desconto', 'korting', 'rabat', 'sleva', 'zľava', 'popust',
      'reducere', 'kedvezmény', 'alennus', 'allahindlus', 'atlaide', 'nuolaida', 'скидка', 'знижка', 'отстъпка', 'έκπτωση', 'indirim',
      '折扣', '優惠', '优惠', '割引', '할인', '할인율', 'הנחה', 'خصم',
    ],
  },
  {
    name: 'availability',
    kinds: ['availability'],
    words: [
      'availability', 'stock', 'stock status', 'in stock', 'verfügbarkeit', 'lieferbarkeit', 'disponibilité', 'disponibilidad', 'disponibilità',
      'disponibilidade', 'beschikbaarheid', 'dostępność', 'dostupnost', 'dostupnosť', 'razpoložljivost', 'disponibilitate', 'elérhetőség',
      'tillgänglighet', 'saatavuus', 'saadavus', 'pieejamība', 'prieinamumas', 'наличие', 'наявність', 'наличност', 'διαθεσιμότητα',
      'stok durumu', '庫存', '库存', '在庫', '재고', 'מלאי', 'التوفر',
    ],
  },
  {
    name: 'condition',
    words: [
      'condition', 'zustand', 'état', 'estado', 'condizione', 'condizioni', 'condição', 'staat', 'stan', 'stav', 'stanje', 'stare', 'állapot',
      'skick', 'tilstand', 'kunto', 'seisukord', 'stāvoklis', 'būklė', 'состояние', 'стан', 'състояние', 'κατάσταση', 'durum',
      '商品狀態', '商品状态', '商品の状態', '상태', 'מצב', 'الحالة',
    ],
  },
  {
    name: 'color',
    kinds: DESCRIPTIVE,
    words: [
      'color', 'colour', 'farbe', 'couleur', 'colore', 'cor', 'kleur', 'kolor', 'barva', 'farba', 'boja', 'culoare', 'szín', 'färg', 'farve',
      'farge', 'väri', 'värv', 'krāsa', 'spalva', 'цвет', 'колір', 'цвят', 'χρώμα', 'renk', '顏色', '颜色', '色', 'カラー', '색상', '색깔',
      'צבע', 'اللون',
    ],
  },
  {
    name: 'size',
    kinds: DESCRIPTIVE,
    words: [
      'size', 'größe', 'taille', 'talla', 'talle', 'taglia', 'tamanho', 'maat', 'rozmiar', 'velikost', 'veľkosť', 'veličina', 'mărime',
      'méret', 'storlek', 'størrelse', 'koko', 'suurus', 'izmērs', 'dydis', 'размер', 'розмір', 'μέγεθος', 'beden', '尺碼', '尺码',
      'サイズ', '사이즈', '크기', 'מידה', 'المقاس',
    ],
  },
  {
    name: 'dimensions',
    kinds: DESCRIPTIVE,
    words: [
      'dimensions', 'abmessungen', 'dimensiones', 'medidas', 'dimensioni', 'dimensões', 'afmetingen', 'wymiary', 'rozměry', 'rozmery',
      'dimenzije', 'mjere', 'dimensiuni', 'méretek', 'mått', 'mitat', 'mõõtmed', 'izmēri', 'matmenys', 'размеры', 'габариты', 'розміри',
      'размери', 'διαστάσεις', 'boyutlar', '尺寸', '寸法', '치수', 'מידות', 'الأبعاد',
    ],
  },
  {
    name: 'weight',
    kinds: DESCRIPTIVE,
    words: [
      'weight', 'product weight', 'gewicht', 'poids', 'peso', 'waga', 'hmotnost', 'hmotnosť', 'teža', 'težina', 'greutate', 'súly', 'vikt',
      'vægt', 'vekt', 'paino', 'kaal', 'svars', 'svoris', 'вес', 'масса', 'вага', 'тегло', 'βάρος', 'ağırlık', '重量', '商品重量', '重さ',
      '무게', '중량', 'משקל', 'الوزن',
    ],
  },
  {
    name: 'width',
    kinds: DESCRIPTIVE,
    words: [
      'width', 'breite', 'largeur', 'ancho', 'anchura', 'larghezza', 'largura', 'breedte', 'szerokość', 'šířka', 'šírka', 'širina',
      'lățime', 'szélesség', 'bredd', 'bredde', 'leveys', 'laius', 'platums', 'plotis', 'ширина', 'πλάτος', 'genişlik', '寬度', '宽度',
      '幅', '폭', '너비', 'רוחב', 'العرض',
    ],
  },
  {
    name: 'height',
    kinds: DESCRIPTIVE,
    words: [
      'height', 'höhe', 'hauteur', 'alto', 'altura', 'altezza', 'hoogte', 'wysokość', 'výška', 'višina', 'visina', 'înălțime', 'magasság',
      'höjd', 'højde', 'høyde', 'korkeus', 'kõrgus', 'augstums', 'aukštis', 'высота', 'висота', 'височина', 'ύψος', 'yükseklik', '高度',
      '高さ', '높이', 'גובה', 'الارتفاع',
    ],
  },
  {
    name: 'length',
    kinds: DESCRIPTIVE,
    words: [
      'length', 'länge', 'longueur', 'largo', 'longitud', 'lunghezza', 'comprimento', 'lengte', 'długość', 'délka', 'dĺžka', 'dolžina',
      'dužina', 'lungime', 'hosszúság', 'längd', 'længde', 'lengde', 'pituus', 'pikkus', 'garums', 'ilgis', 'длина', 'довжина', 'дължина',
      'μήκος', 'uzunluk', '長度', '长度', '長さ', '길이', 'אורך', 'الطول',
    ],
  },
  {
    name: 'depth',
    kinds: DESCRIPTIVE,
    words: [
      'depth', 'tiefe', 'profondeur', 'profundidad', 'profondità', 'profundidade', 'diepte', 'głębokość', 'hloubka', 'hĺbka', 'globina',
      'dubina', 'adâncime', 'mélység', 'djup', 'dybde', 'syvyys', 'sügavus', 'dziļums', 'gylis', 'глубина', 'глибина', 'дълбочина',
      'βάθος', 'derinlik', '深度', '奥行き', '깊이', 'עומק',
    ],
  },
  {
    name: 'material',
    kinds: DESCRIPTIVE,
    words: [
      'material', 'materials', 'matière', 'matériau', 'materiale', 'materiaal', 'materiał', 'materiál', 'materijal', 'anyag', 'materiaali',
      'materjal', 'materiāls', 'medžiaga', 'материал', 'матеріал', 'υλικό', 'malzeme', '材質', '材质', '素材', '材料', '소재', '재질',
      'חומר', 'الخامة',
    ],
  },
  {
    name: 'model',
    kinds: DESCRIPTIVE,
    words: ['model', 'modell', 'modèle', 'modelo', 'modello', 'malli', 'mudel', 'modelis', 'модель', 'модел', 'μοντέλο', '型號', '型号', '型番', '모델', '모델명', 'דגם', 'الموديل'],
  },
  {
    name: 'type',
    kinds: DESCRIPTIVE,
    words: ['type', 'typ', 'tipo', 'tip', 'típus', 'tyyppi', 'tüüp', 'tips', 'tipas', 'тип', 'τύπος', 'tür', '類型', '类型', 'タイプ', '종류', '유형', 'סוג', 'النوع'],
  },
  {
    name: 'category',
    words: [
      'category', 'kategorie', 'catégorie', 'categoría', 'categoria', 'categorie', 'kategoria', 'kategorija', 'kategória', 'kategori',
      'kategooria', 'категория', 'категорія', 'κατηγορία', '分類', '分类', '카테고리', 'קטגוריה', 'الفئة',
    ],
  },
  {
    name: 'warranty',
    words: [
      'warranty', 'guarantee', 'garantie', 'garantía', 'garantia', 'garanzia', 'gwarancja', 'záruka', 'garancija', 'garanție', 'garancia',
      'garanti', 'takuu', 'garantii', 'garantija', 'гарантия', 'гарантія', 'гаранция', 'εγγύηση', '保固', '保修', '保証', '보증',
      '품질보증', 'אחריות', 'الضمان',
    ],
  },
  {
    name: 'country_of_origin',
    words: [
      'country of origin', 'made in', 'origin', 'herkunftsland', 'herstellungsland', 'ursprungsland', "pays d'origine", 'pays de fabrication',
      'origine', 'país de origen', 'origen', 'paese di origine', 'país de origem', 'origem', 'land van herkomst', 'kraj pochodzenia',
      'země původu', 'krajina pôvodu', 'zemlja porijekla', 'država porekla', 'država izvora', 'țara de origine', 'származási ország',
      'alkuperämaa', 'päritoluriik', 'izcelsmes valsts', 'kilmės šalis', 'страна производства', 'страна происхождения',
      'страна производитель', 'країна виробник', 'країна походження', 'държава на произход', 'χώρα προέλευσης', 'menşei', '產地', '产地',
      '原產地', '原产地', '原産国', '原産地', '원산지', '제조국', 'ארץ ייצור', 'ארץ מקור', 'بلد المنشأ',
    ],
  },
  {
    name: 'country',
    words: ['country', 'land', 'pays', 'país', 'paese', 'kraj', 'země', 'krajina', 'država', 'țară', 'ország', 'maa', 'riik', 'valsts', 'šalis', 'страна', 'країна', 'χώρα', 'ülke', '國家', '国家', '나라', '국가', 'ארץ', 'البلد'],
  },
  {
    name: 'location',
    words: [
      'location', 'standort', 'ort', 'lieu', 'emplacement', 'ubicación', 'localidad', 'posizione', 'località', 'localização', 'locatie',
      'lokalizacja', 'lokalita', 'lokacija', 'locație', 'helyszín', 'plats', 'sijainti', 'asukoht', 'atrašanās vieta', 'vieta',
      'местоположение', 'расположение', 'місцезнаходження', 'τοποθεσία', 'konum', '位置', '地點', '地点', '場所', '위치', 'מיקום', 'الموقع',
    ],
  },
  {
    name: 'address',
    words: [
      'address', 'adresse', 'dirección', 'indirizzo', 'endereço', 'adres', 'adresa', 'naslov', 'cím', 'adress', 'osoite', 'aadress',
      'adrese', 'adresas', 'адрес', 'адреса', 'διεύθυνση', '地址', '住所', '주소', 'כתובת', 'العنوان',
    ],
  },
  {
    name: 'opening_hours',
    words: [
      'opening hours', 'opening times', 'hours', 'öffnungszeiten', "horaires d'ouverture", 'horaires', 'horario', 'horario de apertura',
      'orari', 'orario', 'horário', 'horário de funcionamento', 'openingstijden', 'godziny otwarcia', 'otevírací doba', 'otváracie hodiny',
      'radno vrijeme', 'radno vreme', 'delovni čas', 'program de lucru', 'nyitvatartás', 'öppettider', 'åbningstider', 'åpningstider',
      'aukioloajat', 'lahtiolekuajad', 'darba laiks', 'darbo laikas', 'часы работы', 'режим работы', 'години роботи', 'работно време',
      'ωράριο', 'çalışma saatleri', '營業時間', '营业时间', '営業時間', '영업시간', 'שעות פתיחה', 'ساعات العمل',
    ],
  },
  {
    name: 'phone',
    kinds: ['phone'],
    words: [
      'phone', 'telephone', 'tel', 'telefon', 'téléphone', 'teléfono', 'telefono', 'telefone', 'telefoon', 'telefón', 'puhelin',
      'telefons', 'telefonas', 'телефон', 'τηλέφωνο', '電話', '电话', '전화', '전화번호', 'טלפון', 'هاتف',
    ],
  },
  {
    name: 'email',
    kinds: ['email'],
    words: ['email', 'e mail', 'e-mail', 'courriel', 'correo', 'correo electrónico', 'e-posta', 'sähköposti', 'e-pošta', 'эл. почта', 'электронная почта', '電子郵件', '电子邮件', '이메일', 'דוא"ל', 'البريد الإلكتروني'],
  },
  {
    name: 'date',
    kinds: ['date'],
    words: ['date', 'datum', 'fecha', 'data', 'dátum', 'datums', 'päivämäärä', 'kuupäev', 'дата', 'ημερομηνία', 'tarih', '日期', '日付', '날짜', 'תאריך', 'التاريخ'],
  },
  {
    name: 'seller',
    words: [
      'seller', 'sold by', 'verkäufer', 'vendeur', 'vendedor', 'venditore', 'verkoper', 'sprzedawca', 'prodejce', 'predajca', 'prodajalec',
      'prodavač', 'vânzător', 'eladó', 'säljare', 'sælger', 'selger', 'myyjä', 'müüja', 'pārdevējs', 'pardavėjas', 'продавец',
      'продавець', 'продавач', 'πωλητής', 'satıcı', '賣家', '卖家', '販売者', '판매자', 'מוכר', 'البائع',
    ],
  },
  {
    name: 'quantity',
    words: [
      'quantity', 'menge', 'anzahl', 'quantité', 'cantidad', 'quantità', 'quantidade', 'aantal', 'ilość', 'množství', 'množstvo', 'količina',
      'cantitate', 'mennyiség', 'antal', 'antall', 'määrä', 'kogus', 'daudzums', 'kiekis', 'количество', 'кількість', 'ποσότητα',
      'miktar', 'adet', '數量', '数量', '수량', 'כמות', 'الكمية',
    ],
  },
  {
    name: 'capacity',
    words: [
      'capacity', 'fassungsvermögen', 'capacité', 'contenance', 'capacidad', 'capacità', 'capacidade', 'pojemność', 'kapacita', 'kapaciteta',
      'capacitate', 'kapacitás', 'kapacitet', 'kapasitet', 'tilavuus', 'mahutavus', 'ietilpība', 'talpa', 'вместимость', 'ёмкость',
      'ємність', 'капацитет', 'χωρητικότητα', 'kapasite', '容量', '용량', 'קיבולת', 'السعة',
    ],
  },
  {
    name: 'volume',
    words: ['volume', 'inhalt', 'volumen', 'inhoud', 'objętość', 'objem', 'prostornina', 'zapremina', 'űrtartalom', 'volym', 'rumfang', 'maht', 'tilpums', 'tūris', 'объем', 'объём', 'обсяг', 'обем', 'όγκος', 'hacim', '體積', '体积', '体積', '부피', 'נפח', 'الحجم'],
  },
  {
    name: 'power',
    words: [
      'power', 'leistung', 'puissance', 'potencia', 'potenza', 'potência', 'vermogen', 'moc', 'výkon', 'moč', 'snaga', 'putere',
      'teljesítmény', 'effekt', 'teho', 'võimsus', 'jauda', 'galia', 'мощность', 'потужність', 'мощност', 'ισχύς', 'güç', '功率',
      '出力', '출력', 'הספק', 'القدرة',
    ],
  },
  {
    name: 'voltage',
    words: [
      'voltage', 'spannung', 'netzspannung', 'tension', 'tensión', 'tensione', 'tensão', 'spanning', 'napięcie', 'napětí', 'napätie',
      'napetost', 'napon', 'tensiune', 'feszültség', 'spänning', 'spenning', 'jännite', 'pinge', 'spriegums', 'įtampa', 'напряжение',
      'напруга', 'напрежение', 'τάση', 'gerilim', '電壓', '电压', '電圧', '전압', 'מתח', 'الجهد',
    ],
  },
  {
    name: 'gender',
    words: [
      'gender', 'geschlecht', 'género', 'genere', 'gênero', 'geslacht', 'płeć', 'pohlaví', 'pohlavie', 'spol', 'gen', 'nem', 'kön', 'køn',
      'kjønn', 'sukupuoli', 'sugu', 'dzimums', 'lytis', 'пол', 'стать', 'φύλο', 'cinsiyet', '性別', '性别', '성별', 'מגדר', 'الجنس',
    ],
  },
  {
    name: 'age',
    words: [
      'age', 'alter', 'âge', 'edad', 'età', 'idade', 'leeftijd', 'wiek', 'věk', 'vek', 'starost', 'vârstă', 'kor', 'ålder', 'alder', 'ikä',
      'vanus', 'vecums', 'amžius', 'возраст', 'вік', 'възраст', 'ηλικία', 'yaş', '年齡', '年龄', '年齢', '나이', '연령', 'גיל', 'العمر',
    ],
  },
  {
    name: 'care_instructions',
    words: [
      'care instructions', 'care', 'washing instructions', 'pflegehinweise', 'pflegehinweis', "conseils d'entretien", 'entretien',
      'instrucciones de cuidado', 'cuidados', 'istruzioni di lavaggio', 'instruções de cuidado', 'instruções cuidados', 'instrucoes cuidados',
      'wasvoorschrift', 'pielęgnacja', 'údržba', 'instrucțiuni de întreținere', 'уход', 'догляд', '洗滌方式', '洗涤说明', 'お手入れ方法', '세탁방법',
    ],
  },
  {
    name: 'package_contents',
    words: [
      'package contents', "what's in the box", 'in the box', 'included', 'lieferumfang', 'contenu du colis', 'contenido del paquete', 'contenuto della confezione', 'conteúdo da embalagem', 'inhoud verpakking', 'zawartość opakowania',
      'obsah balení', 'obsah balenia', 'conținutul pachetului', 'a csomag tartalma', 'förpackningens innehåll', 'pakkauksen sisältö',
      'komplektis', 'комплектация', 'в комплекте', 'комплектація', '包裝內容', '包装内容', '同梱物', '구성품', 'תכולת האריזה', 'محتويات العبوة',
    ],
  },
  {
    name: 'features',
    words: [
      'features', 'properties', 'eigenschaften', 'merkmale', 'caractéristiques', 'características', 'caratteristiche', 'kenmerken',
      'cechy', 'vlastnosti', 'lastnosti', 'karakteristike', 'caracteristici', 'jellemzők', 'egenskaper', 'ominaisuudet', 'omadused',
      'īpašības', 'savybės', 'характеристики', 'особенности', 'χαρακτηριστικά', 'özellikler', '特色', '特點', '特点', '特徴', '특징',
      'מאפיינים', 'المميزات',
    ],
  },
  {
    name: 'shipping',
    words: [
      'shipping', 'delivery', 'versand', 'lieferung', 'livraison', 'envío', 'entrega', 'spedizione', 'consegna', 'envio', 'verzending',
      'levering', 'wysyłka', 'dostawa', 'doprava', 'doručení', 'doručenie', 'dostava', 'livrare', 'szállítás', 'frakt', 'leverans',
      'toimitus', 'tarne', 'piegāde', 'pristatymas', 'доставка', 'αποστολή', 'kargo', 'teslimat', '配送', '運送', '运送', '배송',
      'משלוח', 'الشحن',
    ],
  },
  {
    name: 'author',
    words: [
      'author', 'autor', 'auteur', 'autore', 'avtor', 'szerző', 'författare', 'forfatter', 'kirjoittaja', 'autors', 'autorius', 'автор',
      'συγγραφέας', 'yazar', '作者', '著者', '저자', '작가', 'מחבר', 'المؤلف',
    ],
  },
  {
    name: 'publisher',
    words: [
      'publisher', 'verlag', 'éditeur', 'editorial', 'editore', 'editora', 'uitgever', 'wydawnictwo', 'nakladatel', 'vydavateľ', 'založba',
      'izdavač', 'editura', 'kiadó', 'förlag', 'forlag', 'kustantaja', 'kirjastus', 'izdevējs', 'leidykla', 'издательство', 'видавництво',
      'издателство', 'εκδότης', 'yayınevi', '出版社', '출판사', 'הוצאה לאור', 'الناشر',
    ],
  },
  {
    name: 'language',
    words: [
      'language', 'sprache', 'langue', 'idioma', 'lingua', 'língua', 'taal', 'język', 'jazyk', 'jezik', 'limba', 'nyelv', 'språk', 'sprog',
      'kieli', 'keel', 'valoda', 'kalba', 'язык', 'мова', 'език', 'γλώσσα', 'dil', '語言', '语言', '言語', '언어', 'שפה', 'اللغة',
    ],
  },
  {
    name: 'pages',
    words: [
      'pages', 'number of pages', 'seiten', 'seitenzahl', 'seitenanzahl', 'nombre de pages', 'páginas', 'número de páginas', 'pagine',
      "pagina's", 'liczba stron', 'počet stran', 'počet strán', 'število strani', 'broj stranica', 'număr de pagini', 'oldalszám', 'sidor',
      'antal sidor', 'sider', 'sivumäärä', 'lehekülgi', 'lappušu skaits', 'puslapių skaičius', 'количество страниц', 'страниц',
      'кількість сторінок', 'σελίδες', 'sayfa sayısı', '頁數', '页数', 'ページ数', '페이지', '쪽수', 'מספר עמודים', 'عدد الصفحات',
    ],
  },
];
