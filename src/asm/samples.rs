//! Small programs written as listings: the examples of the PNaCl bitcode
//! specification (seed 001, "Contents of PNaCl bitcode files"), kept as text
//! so the project can build sample pexes itself with [`super::assemble`].

/// The factorial example of the specification: `int fact(int n)` as a
/// pnacl-bcdis listing (positions, records, PNaClAsm), unabbreviated.
pub const FACTORIAL_LISTING: &str = r#"
    0:0|<65532, 80, 69, 88, 69, 1, 0,|Magic Number: 'PEXE' (80, 69, 88, 69)
       | 8, 0, 17, 0, 4, 0, 2, 0, 0, |PNaCl Version: 2
       | 0>                          |
   16:0|1: <65535, 8, 2>             |module {  // BlockID = 8
   24:0|  3: <1, 1>                  |  version 1;
   26:4|  1: <65535, 0, 2>           |  abbreviations {  // BlockID = 0
   36:0|  0: <65534>                 |  }
   40:0|  1: <65535, 17, 2>          |  types {  // BlockID = 17
   48:0|    3: <1, 4>                |    count 4;
   50:4|    3: <7, 32>               |    @t0 = i32;
   53:6|    3: <2>                   |    @t1 = void;
   55:4|    3: <21, 0, 0, 0>         |    @t2 = i32 (i32);
   59:4|    3: <7, 1>                |    @t3 = i1;
   62:0|  0: <65534>                 |  }
   64:0|  3: <8, 2, 0, 0, 0>         |  define external i32 @f0(i32);
   68:6|  1: <65535, 19, 2>          |  globals {  // BlockID = 19
   76:0|    3: <5, 0>                |    count 0;
   78:4|  0: <65534>                 |  }
   80:0|  1: <65535, 14, 2>          |  valuesymtab {  // BlockID = 14
   88:0|    3: <1, 0, 102, 97, 99,   |    @f0 : "fact";
       |        116>                 |
   96:4|  0: <65534>                 |  }
  100:0|  1: <65535, 12, 2>          |  function i32 @f0(i32 %p0) {  
       |                             |                   // BlockID = 12
  108:0|    3: <1, 3>                |    blocks 3;
  110:4|    1: <65535, 11, 2>        |    constants {  // BlockID = 11
  120:0|      3: <1, 0>              |      i32:
  122:4|      3: <4, 2>              |        %c0 = i32 1;
  125:0|    0: <65534>               |      }
       |                             |  %b0:
  128:0|    3: <28, 2, 1, 32>        |    %v0 = icmp eq i32 %p0, %c0;
  132:6|    3: <11, 1, 2, 1>         |    br i1 %v0, label %b1, label %b2;
       |                             |  %b1:
  136:6|    3: <10, 2>               |    ret i32 %c0;
       |                             |  %b2:
  139:2|    3: <2, 3, 2, 1>          |    %v1 = sub i32 %p0, %c0;
  143:2|    3: <34, 0, 5, 1>         |    %v2 = call i32 @f0(i32 %v1);
  148:0|    3: <2, 5, 1, 2>          |    %v3 = mul i32 %p0, %v2;
  152:0|    3: <10, 1>               |    ret i32 %v3;
  154:4|  0: <65534>                 |  }
  156:0|0: <65534>                   |}
"#;

/// The abbreviations example of the specification: the standard BLOCKINFO
/// abbreviations of pnacl-finalize and a function `i32 @f0(i32, i32)` whose
/// records use them (`@a1`, `@a4`), plus a local abbreviation in the types block.
pub const ABBREVIATIONS_LISTING: &str = r#"
    0:0|<65532, 80, 69, 88, 69, 1, 0,|Magic Number: 'PEXE' (80, 69, 88, 69)
       | 8, 0, 17, 0, 4, 0, 2, 0, 0, |PNaCl Version: 2
       | 0>                          |
   16:0|1: <65535, 8, 2>             |module {  // BlockID = 8
   24:0|  3: <1, 1>                  |  version 1;
   26:4|  1: <65535, 0, 2>           |  abbreviations {  // BlockID = 0
   36:0|    1: <1, 14>               |    valuesymtab:
   38:4|    2: <65533, 4, 0, 1, 3, 0,|      @a0 = abbrev <fixed(3), vbr(8), 
       |        2, 8, 0, 3, 0, 1, 8> |                   array(fixed(8))>;
   43:2|    2: <65533, 4, 1, 1, 0, 2,|      @a1 = abbrev <1, vbr(8), 
       |        8, 0, 3, 0, 1, 7>    |                   array(fixed(7))>;
   48:0|    2: <65533, 4, 1, 1, 0, 2,|      @a2 = abbrev <1, vbr(8), 
       |        8, 0, 3, 0, 4>       |                   array(char6)>;
   52:1|    2: <65533, 4, 1, 2, 0, 2,|      @a3 = abbrev <2, vbr(8), 
       |        8, 0, 3, 0, 4>       |                   array(char6)>;
   56:2|    1: <1, 11>               |    constants:
   58:6|    2: <65533, 2, 1, 1, 0, 1,|      @a0 = abbrev <1, fixed(2)>;
       |        2>                   |
   61:7|    2: <65533, 2, 1, 4, 0, 2,|      @a1 = abbrev <4, vbr(8)>;
       |        8>                   |
   65:0|    2: <65533, 2, 1, 4, 1, 0>|      @a2 = abbrev <4, 0>;
   68:1|    2: <65533, 2, 1, 6, 0, 2,|      @a3 = abbrev <6, vbr(8)>;
       |        8>                   |
   71:2|    1: <1, 12>               |    function:
   73:6|    2: <65533, 4, 1, 20, 0,  |      @a0 = abbrev <20, vbr(6), vbr(4),
       |        2, 6, 0, 2, 4, 0, 2, |                   vbr(4)>;
       |        4>                   |
   79:1|    2: <65533, 4, 1, 2, 0, 2,|      @a1 = abbrev <2, vbr(6), vbr(6), 
       |        6, 0, 2, 6, 0, 1, 4> |                   fixed(4)>;
   84:4|    2: <65533, 4, 1, 3, 0, 2,|      @a2 = abbrev <3, vbr(6), 
       |        6, 0, 1, 2, 0, 1, 4> |                   fixed(2), fixed(4)>;
   89:7|    2: <65533, 1, 1, 10>     |      @a3 = abbrev <10>;
   91:7|    2: <65533, 2, 1, 10, 0,  |      @a4 = abbrev <10, vbr(6)>;
       |        2, 6>                |
   95:0|    2: <65533, 1, 1, 15>     |      @a5 = abbrev <15>;
   97:0|    2: <65533, 3, 1, 43, 0,  |      @a6 = abbrev <43, vbr(6), 
       |        2, 6, 0, 1, 2>       |                   fixed(2)>;
  101:2|    2: <65533, 4, 1, 24, 0,  |      @a7 = abbrev <24, vbr(6), vbr(6),
       |        2, 6, 0, 2, 6, 0, 2, |                   vbr(4)>;
       |        4>                   |
  106:5|    1: <1, 19>               |    globals:
  109:1|    2: <65533, 3, 1, 0, 0, 2,|      @a0 = abbrev <0, vbr(6), 
       |        6, 0, 1, 1>          |                   fixed(1)>;
  113:3|    2: <65533, 2, 1, 1, 0, 2,|      @a1 = abbrev <1, vbr(8)>;
       |        8>                   |
  116:4|    2: <65533, 2, 1, 2, 0, 2,|      @a2 = abbrev <2, vbr(8)>;
       |        8>                   |
  119:5|    2: <65533, 3, 1, 3, 0, 3,|      @a3 = abbrev <3, array(fixed(8))>
       |        0, 1, 8>             |          ;
  123:2|    2: <65533, 2, 1, 4, 0, 2,|      @a4 = abbrev <4, vbr(6)>;
       |        6>                   |
  126:3|    2: <65533, 3, 1, 4, 0, 2,|      @a5 = abbrev <4, vbr(6), vbr(6)>;
       |        6, 0, 2, 6>          |
  130:5|  0: <65534>                 |  }
  132:0|  1: <65535, 17, 3>          |  types {  // BlockID = 17
  140:0|    2: <65533, 4, 1, 21, 0,  |    %a0 = abbrev <21, fixed(1), 
       |        1, 1, 0, 3, 0, 1, 2> |                  array(fixed(2))>;
  144:7|    3: <1, 3>                |    count 3;
  147:4|    3: <7, 32>               |    @t0 = i32;
  150:7|    4: <21, 0, 0, 0, 0>      |    @t1 = i32 (i32, i32); <%a0>
  152:7|    3: <2>                   |    @t2 = void;
  154:6|  0: <65534>                 |  }
  156:0|  3: <8, 1, 0, 0, 0>         |  define external i32 @f0(i32, i32);
  160:6|  1: <65535, 19, 4>          |  globals {  // BlockID = 19
  168:0|    3: <5, 0>                |    count 0;
  170:6|  0: <65534>                 |  }
  172:0|  1: <65535, 14, 3>          |  valuesymtab {  // BlockID = 14
  180:0|    6: <1, 0, 102>           |    @f0 : "f"; <@a2>
  182:7|  0: <65534>                 |  }
  184:0|  1: <65535, 12, 4>          |  function i32 @f0(i32 %p0, i32 %p1) { 
       |                             |                   // BlockID = 12
  192:0|    3: <1, 1>                |    blocks 1;
       |                             |  %b0:
  194:6|    5: <2, 2, 1, 0>          |    %v0 = add i32 %p0, %p1; <@a1>
  197:2|    5: <2, 3, 1, 0>          |    %v1 = add i32 %p0, %v0; <@a1>
  199:6|    8: <10, 1>               |    ret i32 %v1; <@a4>
  201:0|  0: <65534>                 |  }
  204:0|0: <65534>                   |}
"#;
